//! The server's commands (`workspace/executeCommand`):
//!
//! - `skc.explain` `[code]`: the explanation page of a diagnostic code, as Markdown (a string).
//! - `skc.showCuda` `[uri, position?]`: the CUDA C that skc's emitter makes of the document (no NVRTC involved),
//!   as `{ "kernel": name or null, "line": 0-based line of that kernel's header, "language": "cuda", "source" }`;
//!   the kernel is the one whose item holds `position` (else the first kernel of the file). A document with
//!   errors has no CUDA C: the answer is then an error that says so.

use serde_json::{json, Value};
use skc_core::codegen::{emit_cuda, EmitOptions};
use skc_core::syntax::ast::Item;
use skc_core::Checked;

use crate::explain::page_markdown;

pub const EXPLAIN: &str = "skc.explain";
pub const SHOW_CUDA: &str = "skc.showCuda";

/// Every command, as the server announces them.
pub fn all() -> Vec<String> {
    vec![EXPLAIN.to_string(), SHOW_CUDA.to_string()]
}

/// `skc.explain`'s answer for its arguments.
pub fn explain(arguments: &[Value]) -> Result<Value, String> {
    let code =
        arguments.first().and_then(Value::as_str).ok_or("`skc.explain` takes a diagnostic code, such as \"E0001\"")?;
    page_markdown(code).map(Value::String).ok_or_else(|| format!("there is no diagnostic code `{code}`"))
}

/// `skc.showCuda`'s answer for a checked document; `offset` selects the kernel.
pub fn show_cuda(checked: &Checked, offset: Option<usize>) -> Result<Value, String> {
    let errors = checked.error_count();
    if errors > 0 {
        let plural = if errors == 1 { "" } else { "s" };
        return Err(format!("the file has {errors} error{plural}: it has no CUDA C until they are fixed"));
    }
    let options = EmitOptions { line_directives: false, ..EmitOptions::default() };
    let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &options);
    let kernel = selected_kernel(checked, offset);
    let symbol = kernel.and_then(|name| cuda.kernels.iter().find(|k| k.name == name)).map(|k| k.symbol.as_str());
    let line = symbol.and_then(|symbol| {
        let header = format!("{symbol}(");
        cuda.source.lines().position(|l| l.contains("__global__") && l.contains(&header))
    });
    Ok(json!({ "kernel": kernel, "line": line.unwrap_or(0), "language": "cuda", "source": cuda.source }))
}

/// The kernel of the root file whose item holds `offset`, else its first kernel.
fn selected_kernel(checked: &Checked, offset: Option<usize>) -> Option<&str> {
    let kernels = || {
        checked.module.items.iter().zip(&checked.item_files).filter_map(|(item, file)| match item {
            Item::Kernel(kernel) if *file == checked.root => Some(kernel),
            _ => None,
        })
    };
    let under_cursor =
        offset.and_then(|offset| kernels().find(|k| k.span.start as usize <= offset && offset <= k.span.end as usize));
    under_cursor.or_else(|| kernels().next()).map(|k| k.name.name.as_str())
}
