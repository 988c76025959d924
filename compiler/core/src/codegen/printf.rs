//! `printf format args...` as CUDA's device `printf`: the format written back as a C literal, each argument cast
//! to the C type its conversion reads (`(double)` for every float, as C's varargs promote a float). It orders
//! memory (an effect the emitter never moves or drops) and has no convergence requirement.

use crate::codegen::lower::{CExpr, FnLowering};
use crate::printf_format::{self, Piece};
use crate::syntax::ast::ExprId;
use crate::typeck::printf_arg;

impl FnLowering<'_, '_> {
    pub(super) fn lower_printf(&mut self, e: ExprId, args: &[ExprId]) -> CExpr {
        let Some((&format, values)) = args.split_first() else { return CExpr::unit() };
        let source = self.g.span(format).map(|span| self.g.sources_snippet(span)).unwrap_or("\"\"");
        // The checker accepted the format, so it parses; an empty format is only the fallback of a broken span.
        let pieces = printf_format::parse(source).unwrap_or_default();
        let conversions = pieces.iter().filter_map(|p| match p {
            Piece::Conversion(c) => Some(c),
            Piece::Text(_) => None,
        });
        let lowered = self.lower_call_args(values, None);
        let mut texts = vec![printf_format::c_literal(&pieces)];
        for ((c, value), &arg) in conversions.zip(&lowered).zip(values) {
            let cast = printf_arg(self.g.ty(arg)).map_or("int", |ty| printf_format::c_argument_cast(c, ty));
            texts.push(format!("({cast})({})", value.text));
        }
        // A statement of its own, emitted where the call is: never moved, merged or dropped.
        self.emit_simple(format!("printf({});", texts.join(", ")), self.g.span(e));
        CExpr::unit()
    }
}
