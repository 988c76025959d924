//! What the client configures: module search directories and whether the uniformity views (inlay hints,
//! semantic tokens) are on. Read from the `initialize` request's `initializationOptions` and from
//! `workspace/didChangeConfiguration`, in either of these shapes (the second is what VS Code sends for the
//! settings `skc.inlayHints.enable`...):
//!
//! ```json
//! { "includePaths": ["lib"], "inlayHints": false, "semanticTokens": { "enable": false } }
//! { "skc": { "inlayHints": { "enable": false } } }
//! ```

use std::path::PathBuf;

use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub include_paths: Vec<PathBuf>,
    pub inlay_hints: bool,
    pub semantic_tokens: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { include_paths: Vec::new(), inlay_hints: true, semantic_tokens: true }
    }
}

impl Settings {
    /// Takes the settings that `value` names; the others keep their values.
    pub fn update(&mut self, value: &Value) {
        let value = value.get("skc").unwrap_or(value);
        if let Some(paths) = value.get("includePaths").and_then(Value::as_array) {
            self.include_paths = paths.iter().filter_map(Value::as_str).map(PathBuf::from).collect();
        }
        if let Some(on) = value.get("inlayHints").and_then(switch) {
            self.inlay_hints = on;
        }
        if let Some(on) = value.get("semanticTokens").and_then(switch) {
            self.semantic_tokens = on;
        }
    }
}

/// `true`, or `{ "enable": true }`.
fn switch(value: &Value) -> Option<bool> {
    value.as_bool().or_else(|| value.get("enable").and_then(Value::as_bool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_shapes_are_read_and_absent_settings_are_kept() {
        let mut settings = Settings::default();
        settings.update(&json!({ "includePaths": ["a"], "inlayHints": false }));
        assert_eq!((settings.include_paths.len(), settings.inlay_hints, settings.semantic_tokens), (1, false, true));
        settings.update(&json!({ "skc": { "semanticTokens": { "enable": false }, "inlayHints": { "enable": true } } }));
        assert_eq!((settings.include_paths.len(), settings.inlay_hints, settings.semantic_tokens), (1, true, false));
        settings.update(&json!(null));
        settings.update(&json!({ "inlayHints": "yes" }));
        assert_eq!((settings.inlay_hints, settings.semantic_tokens), (true, false));
    }
}
