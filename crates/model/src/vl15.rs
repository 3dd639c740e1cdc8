//! The VL15 (management) receive buffer (docs/spec.md §4, seeds 000 and 002): VL15 is not
//! flow controlled, so an SMP arriving at a full buffer is silently dropped — here
//! dropped and counted.

/// A VL15 receive buffer holding up to `capacity` packets (IBA requires at least one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vl15Buffer {
    capacity: u8,
    held: u8,
    dropped: u32,
    accepted: u32,
}

impl Vl15Buffer {
    pub const fn new(capacity: u8) -> Self {
        Self {
            capacity,
            held: 0,
            dropped: 0,
            accepted: 0,
        }
    }
    /// A VL15 packet arrived: kept if there is room, else dropped and counted.
    /// Returns whether it was kept.
    pub fn accept(&mut self) -> bool {
        if self.held < self.capacity {
            self.held += 1;
            self.accepted = self.accepted.saturating_add(1);
            true
        } else {
            self.dropped = self.dropped.saturating_add(1);
            false
        }
    }
    /// The management agent took one packet; returns whether there was one.
    pub fn drain(&mut self) -> bool {
        let had = self.held > 0;
        self.held = self.held.saturating_sub(1);
        had
    }
    /// Empty the buffer (link resync).
    pub fn clear(&mut self) {
        self.held = 0;
    }
    pub fn held(&self) -> u8 {
        self.held
    }
    pub fn capacity(&self) -> u8 {
        self.capacity
    }
    pub fn dropped(&self) -> u32 {
        self.dropped
    }
    pub fn accepted(&self) -> u32 {
        self.accepted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_buffer_drops_and_counts() {
        let mut b = Vl15Buffer::new(1);
        assert!(b.accept());
        assert!(!b.accept());
        assert!(!b.accept());
        assert_eq!((b.held(), b.dropped(), b.accepted()), (1, 2, 1));
        assert!(b.drain());
        assert!(!b.drain());
        assert!(b.accept());
        assert_eq!(b.dropped(), 2);
    }
}
