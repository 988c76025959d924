//! The interpreter as the batch's machine (`--interp`): a check of the pipeline without a GPU, and what
//! `skc run --interp` would write for each case. Everything runs in `prepare`, on the pool's threads; `run` only
//! hands the result over.

use std::path::Path;

use skc_core::diagnostic::{render, ColorChoice};
use skc_core::session::Session;
use skc_interp::{launch, Options};

use crate::corpus::Case;
use crate::pipeline::{Backend, Failure, Finished};

pub struct Interpreter<'s> {
    pub session: &'s Session<'s>,
    pub kernel: String,
}

impl Backend for Interpreter<'_> {
    type Prepared = Finished;

    fn prepare(&self, dir: &Path, case: &Case) -> Result<Finished, Failure> {
        let mut ready = crate::launch::prepare(self.session, dir, case, &self.kernel)?;
        // `skc run --interp`'s defaults: in order, races checked, the default step budget.
        let outcome = launch(&ready.interp, &self.kernel, &ready.geometry, &mut ready.args, &Options::default())
            .map_err(|e| Failure::of_case(format!("error: {e}")))?;
        let sources = &ready.compiled.checked.sources;
        let mut notes: String =
            outcome.reports.iter().map(|r| render(&r.diagnostic, sources, ColorChoice::Never)).collect();
        if !outcome.completed {
            notes.push_str(
                "error: the launch stopped early; the written vectors hold what the threads wrote until then\n",
            );
        }
        let written = skc_interp::args::written_json(&ready.kernel, &ready.args);
        Ok(Finished { written, notes })
    }

    fn run(&self, case: &Case, finished: Finished) -> Result<Finished, Failure> {
        hang_if_asked(case);
        Ok(finished)
    }
}

/// Debug builds only: `SKC_DEBUG_HANG=NAME` makes case NAME hang in `run`, as a kernel that never returns would on
/// a GPU, so that the tests can watch the watchdog end the process and the next process finish the batch.
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
fn hang_if_asked(case: &Case) {
    #[cfg(debug_assertions)]
    if std::env::var_os("SKC_DEBUG_HANG").is_some_and(|name| name == case.name.as_str()) {
        loop {
            std::thread::park();
        }
    }
}
