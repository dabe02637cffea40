//! The solved tables of every game's analysis service, as the server sees
//! them: their states for `/api/status`, and building the missing ones in
//! the background while hints fall back to search.

use endgame_core::budget::{Budget, Cancel};
use endgame_core::cache::{TableInfo, TableState, Tables};
use std::sync::Arc;

/// Every table of `services`, in the order they are built: cheapest first
/// (by the services' order, then as each lists them).
pub fn all(services: &[Arc<dyn Tables>]) -> Vec<TableInfo> {
    services.iter().flat_map(|s| s.tables()).collect()
}

/// What the background builder did not build.
#[derive(Debug, Default, PartialEq)]
pub struct Unbuilt {
    /// Tables whose build failed, with the error.
    pub failed: Vec<(String, String)>,
    /// Tables left alone because building them takes more memory than
    /// the budget, with how much they take.
    pub skipped: Vec<(String, u64)>,
}

/// Builds (or loads) every table of `services` not ready yet, one at a
/// time, until done or `cancel` is set. A table whose build takes more
/// than `memory` bytes (as its service estimates) is skipped, and every
/// build runs within `memory`. A failure does not stop the others.
pub fn build_missing(
    services: &[Arc<dyn Tables>],
    cancel: &Cancel,
    memory: Option<u64>,
) -> Unbuilt {
    let mut out = Unbuilt::default();
    for s in services {
        for t in s.tables() {
            if cancel.is_cancelled() {
                return out;
            }
            if matches!(t.state, TableState::Ready) {
                continue;
            }
            // A file on disk is only read, whatever the table cost to make.
            let fresh = !matches!(t.state, TableState::Cached);
            if let (true, Some(need), Some(have)) = (fresh, t.build_bytes, memory) {
                if need > have {
                    out.skipped.push((t.name.clone(), need));
                    continue;
                }
            }
            let mut budget = Budget::unlimited().with_cancel(cancel.clone());
            if let Some(m) = memory {
                budget = budget.with_memory(m as usize);
            }
            match s.build(&t.name, &budget) {
                Some(Ok(_)) | None => {}
                Some(Err(e)) => out.failed.push((t.name.clone(), e.to_string())),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use endgame_core::cache::{BuildReport, CacheError};
    use std::path::PathBuf;
    use std::sync::Mutex;

    /// A service with named tables, some of which fail to build.
    struct Fake {
        names: Vec<&'static str>,
        fails: &'static str,
        built: Mutex<Vec<String>>,
        /// The memory budget of the last build.
        memory: Mutex<Option<usize>>,
    }

    impl Tables for Fake {
        fn tables(&self) -> Vec<TableInfo> {
            let built = self.built.lock().unwrap();
            self.names
                .iter()
                .map(|n| TableInfo {
                    name: n.to_string(),
                    about: String::new(),
                    file: PathBuf::from(n),
                    state: if built.iter().any(|b| b == n) {
                        TableState::Ready
                    } else {
                        TableState::Missing
                    },
                    bytes: None,
                    // "…big" tables take 10 kB to build.
                    build_bytes: n.ends_with("big").then_some(10_000),
                })
                .collect()
        }

        fn build(&self, name: &str, budget: &Budget) -> Option<Result<BuildReport, CacheError>> {
            if !self.names.contains(&name) {
                return None;
            }
            *self.memory.lock().unwrap() = budget.memory;
            if budget.stop() || name == self.fails {
                return Some(Err(CacheError::Invalid("no".into())));
            }
            self.built.lock().unwrap().push(name.to_string());
            Some(Ok(BuildReport {
                name: name.into(),
                source: "built".into(),
                warning: None,
                entries: 1,
                bytes: 1,
                time_ms: 0.0,
            }))
        }
    }

    fn fake(names: Vec<&'static str>, fails: &'static str) -> Arc<Fake> {
        Arc::new(Fake {
            names,
            fails,
            built: Mutex::new(vec![]),
            memory: Mutex::new(None),
        })
    }

    #[test]
    fn every_missing_table_is_built_once_and_failures_reported() {
        let a = fake(vec!["a1", "a2"], "a2");
        let b = fake(vec!["b1"], "");
        let services: Vec<Arc<dyn Tables>> = vec![a.clone(), b.clone()];
        let failed = build_missing(&services, &Cancel::new(), None).failed;
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].0, "a2");
        assert_eq!(*a.built.lock().unwrap(), ["a1"]);
        assert_eq!(*b.built.lock().unwrap(), ["b1"]);
        // Ready tables are not built again.
        build_missing(&services, &Cancel::new(), None);
        assert_eq!(*b.built.lock().unwrap(), ["b1"]);
        let states: Vec<TableState> = all(&services).into_iter().map(|t| t.state).collect();
        assert_eq!(
            states,
            [TableState::Ready, TableState::Missing, TableState::Ready]
        );
    }

    #[test]
    fn a_cancel_stops_the_builds() {
        let a = fake(vec!["a1", "a2"], "");
        let services: Vec<Arc<dyn Tables>> = vec![a.clone()];
        let cancel = Cancel::new();
        cancel.cancel();
        build_missing(&services, &cancel, None);
        assert!(a.built.lock().unwrap().is_empty());
    }

    #[test]
    fn tables_over_the_memory_budget_are_skipped_and_the_rest_built_within_it() {
        let a = fake(vec!["a1", "a2big"], "");
        let services: Vec<Arc<dyn Tables>> = vec![a.clone()];
        let r = build_missing(&services, &Cancel::new(), Some(5_000));
        assert_eq!(r.skipped, [("a2big".to_string(), 10_000)]);
        assert!(r.failed.is_empty());
        assert_eq!(*a.built.lock().unwrap(), ["a1"]);
        assert_eq!(*a.memory.lock().unwrap(), Some(5_000));
        // With room for it, it is built.
        let r = build_missing(&services, &Cancel::new(), Some(20_000));
        assert_eq!(r, Unbuilt::default());
        assert_eq!(*a.built.lock().unwrap(), ["a1", "a2big"]);
    }
}
