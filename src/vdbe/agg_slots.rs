//! The aggregate states of a running program, by accumulator register.
//!
//! An accumulator register's state lives here from its first `AggStep`
//! (or `AggValue`) until `AggFinal` or a `Null` over the register ends
//! it. Indexed by register number (programs use few, small register
//! numbers): a step finds its state without hashing.

use crate::vdbe::func::AggregateState;

/// Aggregate states indexed by accumulator register.
#[derive(Default)]
pub struct AggSlots {
    slots: Vec<Option<Box<dyn AggregateState>>>,
}

impl AggSlots {
    /// The state of accumulator `reg`, started with `start` when it has none.
    pub fn get_or_start(&mut self, reg: usize, start: impl FnOnce() -> Box<dyn AggregateState>) -> &mut Box<dyn AggregateState> {
        if reg >= self.slots.len() {
            self.slots.resize_with(reg + 1, || None);
        }
        self.slots[reg].get_or_insert_with(start)
    }

    /// Take accumulator `reg`'s state out, ending it.
    pub fn take(&mut self, reg: usize) -> Option<Box<dyn AggregateState>> {
        self.slots.get_mut(reg).and_then(Option::take)
    }

    /// End accumulator `reg`'s state, if it has one.
    pub fn end(&mut self, reg: usize) {
        if let Some(s) = self.slots.get_mut(reg) {
            *s = None;
        }
    }

    /// End every state.
    pub fn clear(&mut self) {
        self.slots.clear();
    }
}
