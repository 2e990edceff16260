//! Tool state kept inside the plugin behind opaque numeric [`StepHandle`] tokens.
//!
//! The host only ever sees a number, never a pointer into plugin memory, so a stale or forged handle is an
//! unknown token (a no-op) rather than a use-after-free. `get` retains an `Arc`, so an in-flight callback
//! keeps its state alive even if `remove` runs concurrently; `cancel` flips a separate atomic flag without
//! waiting for the state lock (a poll may hold it).

use crate::StepHandle;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// One tool call's state and its cancel flag.
pub struct ToolEntry<T> {
    state: Mutex<T>,
    cancel: Arc<AtomicBool>,
}

impl<T> ToolEntry<T> {
    /// Serialises access to the state (a poisoned lock is recovered: the state is the plugin's own).
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Acquire)
    }

    /// The shared flag, for a worker thread to watch.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancel)
    }
}

/// A table of tool calls, usable from a `static`.
pub struct ToolHandles<T> {
    entries: Mutex<BTreeMap<usize, Arc<ToolEntry<T>>>>,
    next: AtomicUsize,
}

impl<T> Default for ToolHandles<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> ToolHandles<T> {
    pub const fn new() -> Self {
        ToolHandles { entries: Mutex::new(BTreeMap::new()), next: AtomicUsize::new(1) }
    }

    fn table(&self) -> MutexGuard<'_, BTreeMap<usize, Arc<ToolEntry<T>>>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stores `state` and returns its token (never null).
    pub fn insert(&self, state: T) -> StepHandle {
        self.insert_with_cancel(state, Arc::new(AtomicBool::new(false)))
    }

    /// Stores `state` with a cancel flag the caller already shares with a worker.
    pub fn insert_with_cancel(&self, state: T, cancel: Arc<AtomicBool>) -> StepHandle {
        let token = self.next.fetch_add(1, Ordering::Relaxed);
        self.table().insert(token, Arc::new(ToolEntry { state: Mutex::new(state), cancel }));
        token as StepHandle
    }

    /// The entry behind `handle`, retained for as long as the caller holds it.
    pub fn get(&self, handle: StepHandle) -> Option<Arc<ToolEntry<T>>> {
        self.table().get(&(handle as usize)).cloned()
    }

    /// Runs `f` on the state under its lock; `None` for an unknown handle.
    pub fn lock<R>(&self, handle: StepHandle, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        let entry = self.get(handle)?;
        let mut guard = entry.lock();
        Some(f(&mut guard))
    }

    /// Sets the cancel flag (idempotent, thread-safe, does not wait for a poll); `false` if unknown.
    pub fn cancel(&self, handle: StepHandle) -> bool {
        match self.get(handle) {
            Some(entry) => {
                entry.cancel.store(true, Ordering::Release);
                true
            }
            None => false,
        }
    }

    pub fn is_cancelled(&self, handle: StepHandle) -> bool {
        self.get(handle).map(|entry| entry.is_cancelled()).unwrap_or(false)
    }

    /// Cancels and retires the token; repeated removal and unknown handles are no-ops (`false`).
    pub fn remove(&self, handle: StepHandle) -> bool {
        match self.table().remove(&(handle as usize)) {
            Some(entry) => {
                entry.cancel.store(true, Ordering::Release);
                true
            }
            None => false,
        }
    }

    pub fn len(&self) -> usize {
        self.table().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
