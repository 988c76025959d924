//! The fast path's variants measured against the default, one [`Config`] flag each (docs/sched.md, "Lone
//! tasks"), named once so that the GPU tests, the NVRTC test and `sched-bench variants` run the same set.

use crate::config::Config;

/// Every variant flag on, on top of `base`.
pub fn all_on(base: Config) -> Config {
    Config { stamped_slots: true, mailbox_stamped: true, relaxed_empty_completion: true, stop_watcher: false, ..base }
}

/// Every variant flag on, on top of the default.
pub fn all() -> Config {
    all_on(Config::default())
}

/// The default first, then each flag alone, the flags that keep every completion ordered together, and all.
pub fn named(base: &Config) -> Vec<(&'static str, Config)> {
    let b = || base.clone();
    vec![
        ("default", b()),
        ("stamped-slots", Config { stamped_slots: true, ..b() }),
        ("stamped-mailbox", Config { mailbox_stamped: true, ..b() }),
        ("relaxed-empty", Config { relaxed_empty_completion: true, ..b() }),
        ("no-stop-watcher", Config { stop_watcher: false, ..b() }),
        ("ordered-all", Config { stamped_slots: true, mailbox_stamped: true, stop_watcher: false, ..b() }),
        ("all", all_on(b())),
    ]
}
