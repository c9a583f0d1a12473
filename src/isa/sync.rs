//! Synchronisation between the hardware pipes: `set_flag`, `wait_flag`, `pipe_barrier`.
//!
//! On the NPU each pipe is an independent queue and a consumer must wait for its producer's
//! event. On the CPU every instruction completes before the next starts, so these are no-ops;
//! they exist so generated code keeps the same shape as the PTO-ISA C++ it mirrors.

/// A hardware pipe (instruction queue) of the AI core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// Scalar unit (`PIPE_S`).
    S,
    /// Vector unit (`PIPE_V`).
    V,
    /// Cube (matrix) unit (`PIPE_M`).
    M,
    /// L1 -> L0 moves (`PIPE_MTE1`).
    Mte1,
    /// GM -> on-chip loads (`PIPE_MTE2`).
    Mte2,
    /// On-chip -> GM stores (`PIPE_MTE3`).
    Mte3,
    /// Fixpipe, accumulator write-out (`PIPE_FIX`).
    Fix,
    /// Every pipe (`PIPE_ALL`).
    All,
}

/// A cross-pipe event id (`EVENT_ID0` ... `EVENT_ID7` on the NPU).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub u8);

/// `EVENT_ID0`.
pub const EVENT_ID0: EventId = EventId(0);
/// `EVENT_ID1`.
pub const EVENT_ID1: EventId = EventId(1);
/// `EVENT_ID2`.
pub const EVENT_ID2: EventId = EventId(2);
/// `EVENT_ID3`.
pub const EVENT_ID3: EventId = EventId(3);
/// `EVENT_ID4`.
pub const EVENT_ID4: EventId = EventId(4);
/// `EVENT_ID5`.
pub const EVENT_ID5: EventId = EventId(5);
/// `EVENT_ID6`.
pub const EVENT_ID6: EventId = EventId(6);
/// `EVENT_ID7`.
pub const EVENT_ID7: EventId = EventId(7);

/// `set_flag(src, dst, event)`: `src` signals `event` to `dst`. A no-op on the CPU.
#[inline(always)]
pub fn set_flag(src: Pipe, dst: Pipe, event: EventId) {
    let _ = (src, dst, event);
}

/// `wait_flag(src, dst, event)`: `dst` waits for `src`'s `event`. A no-op on the CPU.
#[inline(always)]
pub fn wait_flag(src: Pipe, dst: Pipe, event: EventId) {
    let _ = (src, dst, event);
}

/// `pipe_barrier(pipe)`: waits until `pipe` drains. A no-op on the CPU.
#[inline(always)]
pub fn pipe_barrier(pipe: Pipe) {
    let _ = pipe;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_is_a_no_op() {
        set_flag(Pipe::Mte2, Pipe::V, EVENT_ID0);
        wait_flag(Pipe::Mte2, Pipe::V, EVENT_ID0);
        pipe_barrier(Pipe::All);
        assert_eq!(EVENT_ID7, EventId(7));
    }
}
