//! wip
use crate::vdbe::func::FunctionRegistry;
pub fn register(_r: &mut FunctionRegistry) {}
