//! The launch-contract attributes of a kernel (`[@block_1d]`, `[@block_multiple M]`, `[@block_size N]`, with the
//! upper bound of `[@launch_bounds T]`), read into a [`LaunchContract`]: each must be well formed and together they
//! must be satisfiable by some launch (E0107 otherwise).

use super::{Attribute, Builder};
use crate::contract::LaunchContract;
use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{ExprKind, LaunchBounds};
use crate::syntax::lexer::Token;
use crate::syntax::literals;

/// The most threads a block may have on every architecture.
const MAX_BLOCK_THREADS: u32 = 1024;

/// Is `name` one of the launch-contract attributes?
pub fn is_contract_attribute(name: &str) -> bool {
    matches!(name, "block_1d" | "block_multiple" | "block_size")
}

impl Builder<'_> {
    /// The contract the attributes declare, with the span of its first attribute, or `None` when they declare
    /// none (a kernel's `launch_bounds` alone is still its upper bound: see `LaunchContract::max_threads`).
    pub(super) fn launch_contract(
        &mut self,
        attributes: &[Attribute],
        bounds: Option<LaunchBounds>,
    ) -> Option<(LaunchContract, Span)> {
        let mut contract = LaunchContract { max_threads: bounds.map(|b| b.max_threads), ..Default::default() };
        let mut first: Option<Span> = None;
        for attribute in attributes {
            let name = &self.text[attribute.name.range()];
            if !is_contract_attribute(name) {
                continue;
            }
            let span = self.attribute_span(attribute);
            first = first.or(Some(span));
            match name {
                "block_1d" if attribute.payload.is_empty() => contract.one_dimensional = true,
                "block_1d" => self.contract_error(span, "`block_1d` takes nothing", "write `[@block_1d]`"),
                "block_multiple" => match self.one_positive_literal(attribute) {
                    Some(m) => contract.block_multiple = Some(m),
                    None => self.contract_error(
                        span,
                        "expected one positive integer literal",
                        "write `[@block_multiple 32]`",
                    ),
                },
                _ => match self.one_positive_literal(attribute).filter(|&n| n <= MAX_BLOCK_THREADS) {
                    Some(n) => contract.block_size = Some(n),
                    None => self.contract_error(
                        span,
                        "expected one integer literal from 1 to 1024",
                        "write `[@block_size 256]` (threads per block along x)",
                    ),
                },
            }
        }
        let span = first?;
        self.check_satisfiable(&contract, span);
        Some((contract, span))
    }

    /// Contracts no launch can keep are errors: an exact size that breaks the multiple or the bound.
    fn check_satisfiable(&mut self, contract: &LaunchContract, span: Span) {
        if let Some(n) = contract.block_size {
            if contract.violation([n, 1, 1]).is_some() {
                let help = "drop one of the attributes, or make the block size keep the others";
                self.contract_error(span, "no launch can keep these attributes together", help);
            }
        } else if let (Some(m), Some(t)) = (contract.block_multiple, contract.max_threads) {
            if m > t || m > MAX_BLOCK_THREADS {
                let help = "a block must have a positive multiple of the multiple, within the bound";
                self.contract_error(span, "no launch can keep these attributes together", help);
            }
        } else if contract.block_multiple.is_some_and(|m| m > MAX_BLOCK_THREADS) {
            self.contract_error(span, "no block has that many threads (at most 1024)", "write a smaller multiple");
        }
    }

    fn contract_error(&mut self, span: Span, label: &str, help: &str) {
        self.attribute_errors.push(
            Diagnostic::error("E0107", "malformed launch contract")
                .primary(span, label.to_string())
                .help(help.to_string()),
        );
    }

    fn attribute_span(&self, attribute: &Attribute) -> Span {
        let end = attribute.payload.last().map(|w| w.end).unwrap_or(attribute.name.end);
        self.span(attribute.name.start, end)
    }

    /// The attribute's payload as one positive integer literal that fits 32 bits.
    fn one_positive_literal(&self, attribute: &Attribute) -> Option<u32> {
        let [word] = attribute.payload.as_slice() else { return None };
        if word.token != Token::Int {
            return None;
        }
        match literals::int(self.text_of(*word)) {
            literals::IntLiteral::Fits(ExprKind::Int { value, .. }) => u32::try_from(value).ok().filter(|&v| v > 0),
            _ => None,
        }
    }
}
