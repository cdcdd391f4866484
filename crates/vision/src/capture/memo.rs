//! What the readers of one input share besides its frames.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Work the readers of one input would each do alike on its frames (finding
/// the boards of the view in its first frames), done by the first to ask and
/// kept for the others, who wait for it rather than do it again.
#[derive(Default)]
pub struct SharedMemo {
    entries: Mutex<HashMap<String, Arc<OnceLock<Arc<dyn Any + Send + Sync>>>>>,
}

impl SharedMemo {
    /// The value kept under `key`, made with `make` by the first caller; `None`
    /// where a value of another type was kept under it.
    pub fn get_or_make<V, F>(&self, key: &str, make: F) -> Option<Arc<V>>
    where
        V: Any + Send + Sync,
        F: FnOnce() -> V,
    {
        let cell = {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            entries.entry(key.to_string()).or_default().clone()
        };
        let value = cell.get_or_init(|| Arc::new(make()));
        value.clone().downcast::<V>().ok()
    }
}
