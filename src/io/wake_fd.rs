//! # A pollable descriptor for a backend whose completions wait on time
//!
//! The `delay` backend finishes a request when its deadline has passed,
//! inside `poll`: nothing in the kernel becomes readable when that happens,
//! so an application sleeping in epoll on `sqlite3_io_fd` would never
//! wake. [`WakeFd`] gives it one descriptor to sleep on: an epoll instance
//! (itself pollable: readable while one of its members is) holding a
//! timerfd armed at the earliest pending deadline, and the inner backend's
//! own descriptor (io_uring's eventfd) if it has one.
//!
//! Invariants: while the descriptor has been handed out, the timer is
//! armed at or before the earliest deadline not yet finished (`armed`
//! records it; arming only ever moves it earlier between polls (checked:
//! wake_armed_earliest), and each poll sets it again from what is left);
//! a poll that finished requests
//! arms it to fire at once, so an event loop that polls just before it
//! sleeps is not put to sleep on completions its statements have not seen
//! (the contract of the io_uring backend's eventfd too). Before the
//! descriptor is asked for, nothing is created and arming costs a load.

#![allow(unsafe_code, reason = "the wake-up descriptor is created, read and written through libc")]

use crate::error::{Error, Result};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

struct Fds {
    epoll: OwnedFd,
    timer: OwnedFd,
}

/// The epoll + timerfd pair, created on first use.
#[derive(Default)]
pub struct WakeFd {
    fds: OnceLock<Option<Fds>>,
    /// The deadline the timer is armed for, if any.
    armed: Mutex<Option<Instant>>,
}

fn os_error() -> Error {
    Error::from(std::io::Error::last_os_error())
}

fn create(inner: Option<i32>) -> Result<Fds> {
    // SAFETY: plain system calls with constant flags; every result is
    // checked before it is wrapped as an owned descriptor.
    unsafe {
        let raw = libc::epoll_create1(libc::EPOLL_CLOEXEC);
        if raw < 0 {
            return Err(os_error());
        }
        let epoll = OwnedFd::from_raw_fd(raw);
        let raw = libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC | libc::TFD_NONBLOCK);
        if raw < 0 {
            return Err(os_error());
        }
        let timer = OwnedFd::from_raw_fd(raw);
        for fd in std::iter::once(timer.as_raw_fd()).chain(inner) {
            let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: fd as u64 };
            if libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) != 0 {
                return Err(os_error());
            }
        }
        Ok(Fds { epoll, timer })
    }
}

impl WakeFd {
    /// The descriptor to sleep on (created now if it was not), or `None`
    /// if the system refused one. `inner` is the wrapped backend's own
    /// descriptor, watched too.
    pub fn fd(&self, inner: impl FnOnce() -> Option<i32>) -> Option<i32> {
        self.fds.get_or_init(|| create(inner()).ok()).as_ref().map(|f| f.epoll.as_raw_fd())
    }

    /// A request with this deadline was submitted: make the timer fire by
    /// then.
    pub fn arm_before(&self, deadline: Instant) {
        let Some(Some(fds)) = self.fds.get() else { return };
        let mut armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        // invariant: wake_armed_earliest
        if armed.is_some_and(|a| a <= deadline) {
            return;
        }
        set_timer(fds, Some(deadline));
        *armed = Some(deadline);
    }

    /// After a poll: fire at once if it finished requests (their
    /// statements have not run yet), else at the earliest deadline left,
    /// else never.
    pub fn rearm(&self, finished: bool, next: Option<Instant>) {
        let Some(Some(fds)) = self.fds.get() else { return };
        let mut armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        let at = if finished { Some(Instant::now()) } else { next };
        // Nothing finished and the timer already set for the same
        // deadline, not yet passed: it is right as it is (a poll that
        // reaps nothing is the common case of a busy loop; this saves it
        // a system call).
        if !finished && at.is_some() && *armed == at && at.is_some_and(|t| t > Instant::now()) {
            return;
        }
        // Setting the timer also clears expirations not read yet, so the
        // descriptor stops being readable unless this fires again.
        set_timer(fds, at);
        *armed = at;
    }
}

fn set_timer(fds: &Fds, at: Option<Instant>) {
    // A relative timer: `Instant` is CLOCK_MONOTONIC here, but its value
    // is not exposed; a zero `it_value` disarms, so "now" is 1 ns.
    let spec = match at {
        None => libc::timespec { tv_sec: 0, tv_nsec: 0 },
        Some(t) => {
            let d = t.saturating_duration_since(Instant::now()).max(Duration::from_nanos(1));
            libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as libc::c_long }
        }
    };
    let new = libc::itimerspec { it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 }, it_value: spec };
    // SAFETY: timerfd_settime reads `new` and writes nothing (null old).
    unsafe {
        libc::timerfd_settime(fds.timer.as_raw_fd(), 0, &new, std::ptr::null_mut());
    }
}

/// Whether `fd` becomes readable within `timeout_ms` (tests of the
/// descriptors handed to event loops).
#[doc(hidden)]
pub fn readable_within(fd: i32, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd, for the duration of the call.
    unsafe { libc::poll(&mut p, 1, timeout_ms) == 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readable(fd: i32) -> bool {
        readable_within(fd, 0)
    }

    #[test]
    fn fires_at_the_deadline_and_rearms() {
        let w = WakeFd::default();
        let fd = w.fd(|| None).expect("epoll and timerfd");
        assert!(!readable(fd));
        w.arm_before(Instant::now() + Duration::from_millis(1));
        assert!(readable_within(fd, 5000), "the timer wakes the sleeper");
        w.rearm(false, None);
        assert!(!readable(fd), "disarmed and cleared");
        w.rearm(true, None);
        assert!(readable_within(fd, 5000), "a poll that finished requests leaves it readable");
    }
}
