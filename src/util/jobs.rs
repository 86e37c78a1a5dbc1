//! Independent tasks on a few threads of their own: an experiment's
//! variants, a fit's simulated specimens.

use crate::error::Result;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `task(k)` for `k` in `0..count` on up to `jobs` threads, each
/// taking the next task in order, and returns the results in order. After
/// a task fails no other starts; the error returned is the first in task
/// order (a task that never started comes after the one that failed).
pub fn each<T: Send>(jobs: usize, count: usize, task: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<Result<T>>>> = (0..count).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, count.max(1)) {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= count {
                        break;
                    }
                    let outcome = task(k);
                    if outcome.is_err() {
                        next.store(count, Ordering::Relaxed);
                    }
                    *outcomes[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                }
            });
        }
    });
    let mut out = Vec::with_capacity(count);
    for outcome in outcomes {
        match outcome.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(outcome) => out.push(outcome?),
            None => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn results_come_in_order_and_the_first_failure_is_returned() {
        let squares = each(3, 10, |k| Ok(k * k)).unwrap();
        assert_eq!(squares, (0..10).map(|k| k * k).collect::<Vec<_>>());
        let failed = each(2, 10, |k| match k {
            4 | 7 => Err(Error::Step(format!("task {k}"))),
            _ => Ok(k),
        });
        assert_eq!(
            failed.unwrap_err().to_string(),
            Error::Step("task 4".into()).to_string()
        );
        assert!(each(2, 0, Ok).unwrap().is_empty());
    }
}
