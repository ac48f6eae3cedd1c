//! Built-in SQL functions (being written).

use super::FunctionRegistry;

/// Register every built-in function.
pub fn register_all(registry: &mut FunctionRegistry) {
    let _ = registry;
}
