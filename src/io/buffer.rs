//! I/O buffers: owned, page-sized byte arrays that move into a request and
//! come back with its completion.

use std::ops::{Deref, DerefMut};

/// An owned byte buffer handed to the I/O layer for the life of a request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Buffer {
    bytes: Vec<u8>,
}

impl Buffer {
    /// A zero-filled buffer of `len` bytes.
    #[inline]
    pub fn zeroed(len: usize) -> Self {
        Buffer { bytes: vec![0; len] }
    }

    /// Take ownership of bytes.
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        Buffer { bytes }
    }

    /// Give the bytes back.
    pub fn into_vec(self) -> Vec<u8> {
        self.bytes
    }
}

impl Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }
}
