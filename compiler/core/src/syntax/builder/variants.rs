//! Variant types and `match`, desugared as they are parsed, so later passes see only records, `let`s, field
//! reads and `if`s:
//!
//! - `type shape = Circle of float32 | Rect of float32 * float32` is the record
//!   `type shape = { Tag_shape : int32; Circle_0 : float32; Rect_0 : float32; Rect_1 : float32 }` (a tag, then one
//!   field per payload value of each constructor). The fields' names begin with a capital, which no field name of
//!   a program can, so a program reaches them only through constructors and `match`.
//! - A constructor is a record literal of its type: `Rect (w, h)` is
//!   `{ Tag_shape = 1; Circle_0 = 0.0; Rect_0 = w; Rect_1 = h }` (the other constructors' fields zero).
//! - `match e with | Circle r -> a | Rect (w, _) -> b` is
//!   `let ({match0} : shape) = e in if {match0}.Tag_shape = 0 then let r = {match0}.Circle_0 in a
//!   else let w = {match0}.Rect_0 in b`: an `if` per arm, the last arm that the arms before it leave the only
//!   one possible taken without a test. A match on a thread-varying value is therefore an `if` on a
//!   thread-varying condition for the convergence analysis, and a payload bound from it is thread-varying.
//!
//! Constructors are those of the file's variant types declared before their use (as in OCaml); a constructor
//! declared twice, a payload of the wrong number of values and a constructor of another type in a match are
//! E0235; a match that leaves constructors out is E0236 (naming them), an arm no value can reach W0005. A match on
//! integers compares the value with each literal and needs a `_` arm.

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{BinaryOp, Binder, ExprKind, Ident, Item, LetKind, Name, Path, RecordDecl, TypeExpr};
use crate::syntax::lexer::Lexeme;

use super::{Attribute, Builder, ExprId};

/// How the hidden variables holding a matched value begin (`{match0}`): the emitter names them `matched` in C.
pub const MATCH_VALUE_PREFIX: &str = "{match";

/// How deep a payload's zero value may nest records (a record that contains itself has none).
const ZERO_DEPTH: u32 = 16;

/// `B of T` as the grammar reads it: the constructor, then `of` and the payload's type.
pub type ConstructorCase = (Lexeme, Option<(Lexeme, Box<TypeExpr>)>);

/// One alternative of a pattern: `x` or `_`, an integer, a constructor with the names its payload binds.
pub enum PatternAlternative {
    Name(Lexeme),
    Int(Lexeme),
    Constructor(Lexeme, Vec<Lexeme>),
}

/// A pattern: its alternatives (`A | B _`), with its span.
pub struct Pattern {
    alternatives: Vec<PatternAlternative>,
    span: Span,
}

/// An arm of a `match`: its pattern and its body.
pub type Arm = (Pattern, ExprId);

/// A variant type of the file being parsed.
pub(super) struct Variant {
    name: Ident,
    constructors: Vec<Constructor>,
}

struct Constructor {
    name: Ident,
    payload: Vec<TypeExpr>,
}

/// What an arm tests, once its pattern is read.
enum Test {
    /// Always taken (`_`, a name, or an alternative that is one).
    Always,
    /// The tag is one of these constructors (indices in the type).
    Constructors(Vec<usize>),
    /// The value is one of these integer literals.
    Integers(Vec<ExprId>),
}

/// An arm after its pattern is checked: what it tests, and the `let`s its pattern binds (name, value builder).
struct ReadArm {
    test: Test,
    bindings: Vec<(Ident, Binding)>,
    body: ExprId,
    span: Span,
}

/// The value a pattern's name is bound to.
enum Binding {
    /// The matched value itself (`x -> ...`).
    Whole,
    /// One payload field of the constructor (index of constructor, index of value).
    Field(usize, usize),
    /// All payload values of a constructor as a tuple (`C t` for `C of int32 * float32`).
    Tuple(usize),
}

fn tag_field(variant: &str) -> String {
    format!("Tag_{variant}")
}

fn payload_field(constructor: &str, index: usize) -> String {
    format!("{constructor}_{index}")
}

/// Integer and float type names, as `typeck::annot` knows them (a payload of one of these is zero as a literal).
const INTEGER_TYPES: &[&str] = &["int32", "int", "int64", "uint32", "uint64"];
const FLOAT_TYPES: &[&str] = &["float32", "float", "float64", "float16", "bfloat16"];

impl Builder<'_> {
    /// `type name = A | B of T | C of T * U`: the record that holds it, and its constructors for what follows.
    pub fn variant_type(
        &mut self,
        attributes: Vec<Attribute>,
        name: Lexeme,
        first: ConstructorCase,
        rest: Vec<ConstructorCase>,
        l: u32,
        r: u32,
    ) {
        self.type_attributes(&attributes);
        let name = self.ident(name);
        let mut constructors: Vec<Constructor> = Vec::new();
        for (constructor, payload) in std::iter::once(first).chain(rest) {
            if let Some(constructor) = self.read_constructor(constructor, payload, &constructors) {
                constructors.push(constructor);
            }
        }
        let span = self.span(l, r);
        let int32 = |span| TypeExpr::Named(Ident { name: Name::new("int32"), span });
        let mut fields = vec![(Ident { name: Name::new(&tag_field(&name.name)), span: name.span }, int32(name.span))];
        for constructor in &constructors {
            for (index, ty) in constructor.payload.iter().enumerate() {
                let field = Ident { name: Name::new(&payload_field(&constructor.name.name, index)), span: ty.span() };
                fields.push((field, ty.clone()));
            }
        }
        self.module.items.push(Item::Record(RecordDecl { name: name.clone(), fields, span }));
        self.variants.push(Variant { name, constructors });
    }

    /// One constructor of a declaration, or `None` (reported) if it repeats a constructor's name or its payload
    /// is not one the language can hold.
    fn read_constructor(
        &mut self,
        name: Lexeme,
        payload: Option<(Lexeme, Box<TypeExpr>)>,
        earlier: &[Constructor],
    ) -> Option<Constructor> {
        let name = self.ident(name);
        let previous = earlier
            .iter()
            .map(|c| &c.name)
            .chain(self.variants.iter().flat_map(|v| v.constructors.iter().map(|c| &c.name)))
            .find(|c| c.name == name.name);
        if let Some(previous) = previous {
            let d = Diagnostic::error("E0235", format!("the constructor `{}` is declared twice", name.name))
                .primary(name.span, "declared again here")
                .secondary(previous.span, "first declared here")
                .help("give each constructor of the file its own name");
            self.diagnostics.push(d);
            return None;
        }
        let payload = match payload {
            None => Vec::new(),
            Some((of, ty)) => {
                if self.text_of(of) != "of" {
                    let d = Diagnostic::error("E0100", format!("expected `of`, found `{}`", self.text_of(of)))
                        .primary(self.lexeme_span(of), "expected `of`");
                    self.diagnostics.push(d);
                    return None;
                }
                match *ty {
                    TypeExpr::Tuple(components) => components,
                    other => vec![other],
                }
            }
        };
        for ty in &payload {
            if !self.has_zero(ty, 0) {
                let d = Diagnostic::error("E0235", "this payload type is not supported in a variant")
                    .primary(ty.span(), "not a scalar, a record or a variant of this file")
                    .help("a payload is a scalar (`int32`, `float32`, `bool`...), or a record or variant declared before it");
                self.diagnostics.push(d);
                return None;
            }
        }
        Some(Constructor { name, payload })
    }

    /// Whether a value of `ty` has a zero the builder can write (what a constructor puts in the fields of the
    /// other constructors).
    fn has_zero(&self, ty: &TypeExpr, depth: u32) -> bool {
        let TypeExpr::Named(name) = ty else { return false };
        let name = name.name.as_str();
        if INTEGER_TYPES.contains(&name) || FLOAT_TYPES.contains(&name) || name == "bool" {
            return true;
        }
        depth < ZERO_DEPTH
            && self.file_record(name).is_some_and(|fields| fields.iter().all(|(_, t)| self.has_zero(t, depth + 1)))
    }

    /// The fields of the record (or variant) `name` declared so far in this file.
    fn file_record(&self, name: &str) -> Option<&[(Ident, TypeExpr)]> {
        self.looked_up_records.set(true);
        self.module.items.iter().rev().find_map(|item| match item {
            Item::Record(r) if r.name.name == name && r.span.file == self.file => Some(r.fields.as_slice()),
            _ => None,
        })
    }

    /// The zero of `ty` (which [`Builder::has_zero`] accepted), at an empty span at `at`; `depth` bounds the
    /// records it nests (a record declared again after the variant, E0207, may contain itself).
    fn zero(&mut self, ty: &TypeExpr, at: Span, depth: u32) -> ExprId {
        // An empty span: the float literal checks read a literal's text from its span.
        let at = Span { end: at.start, ..at };
        let name = match ty {
            TypeExpr::Named(name) => name.name.to_string(),
            _ => return self.module.alloc(ExprKind::Error, at),
        };
        if depth > ZERO_DEPTH {
            return self.module.alloc(ExprKind::Error, at);
        }
        if INTEGER_TYPES.contains(&name.as_str()) {
            return self.module.alloc(ExprKind::Int { value: 0, suffix: None }, at);
        }
        if FLOAT_TYPES.contains(&name.as_str()) {
            return self.module.alloc(ExprKind::Float { value: 0.0, suffix: None }, at);
        }
        if name == "bool" {
            return self.module.alloc(ExprKind::Bool(false), at);
        }
        let fields = self.file_record(&name).map(<[_]>::to_vec).unwrap_or_default();
        let fields = fields.into_iter().map(|(field, ty)| (field, self.zero(&ty, at, depth + 1))).collect();
        self.module.alloc(ExprKind::Record(fields), at)
    }

    /// The variant and constructor indices of the constructor `name`, if this file declared one so far.
    fn find_constructor(&self, name: &str) -> Option<(usize, usize)> {
        self.variants
            .iter()
            .enumerate()
            .find_map(|(v, variant)| variant.constructors.iter().position(|c| c.name.name == name).map(|c| (v, c)))
    }

    /// A bare capitalised name: a constructor without payload, or a name (`Shared`, a module's value).
    pub fn constructor(&mut self, name: Lexeme) -> ExprId {
        let Some((v, c)) = self.find_constructor(self.text_of(name)) else {
            return self.var((None, name));
        };
        let span = self.lexeme_span(name);
        let count = self.variants[v].constructors[c].payload.len();
        if count > 0 {
            let example = if count == 1 { "x".to_string() } else { format!("({})", vec!["_"; count].join(", ")) };
            let d = Diagnostic::error("E0235", format!("the constructor `{}` needs its payload", self.text_of(name)))
                .primary(span, values_missing(count))
                .help(format!("write `{} {example}`", self.text_of(name)));
            self.diagnostics.push(d);
            return self.module.alloc(ExprKind::Error, span);
        }
        self.constructor_value(v, c, Vec::new(), span)
    }

    /// `C args`: a constructor applied to its payload (`B x`, `C (a, b)`), or a call of an unknown capitalised
    /// name (the type checker reports it).
    pub fn constructor_application(&mut self, name: Lexeme, args: Vec<ExprId>, l: u32, r: u32) -> ExprId {
        let Some((v, c)) = self.find_constructor(self.text_of(name)) else {
            return self.call((None, name), args, l, r);
        };
        let span = self.span(l, r);
        let count = self.variants[v].constructors[c].payload.len();
        let values = match args.as_slice() {
            [one] if count == 1 => Some(vec![*one]),
            [one] if count > 1 => self.take_tuple(*one).filter(|components| components.len() == count),
            _ => None,
        };
        let Some(values) = values else {
            let constructor = self.text_of(name);
            let (label, help) = match count {
                0 => ("this constructor has no payload".to_string(), format!("write `{constructor}` alone")),
                1 => ("one value expected".to_string(), format!("write `{constructor} x`")),
                n => (format!("{n} values expected"), format!("write `{constructor} (a, b, ...)` with {n} values")),
            };
            let d = Diagnostic::error("E0235", format!("wrong payload for the constructor `{constructor}`"))
                .primary(span, label)
                .help(help);
            self.diagnostics.push(d);
            return self.module.alloc(ExprKind::Error, span);
        };
        self.constructor_value(v, c, values, span)
    }

    /// The record literal of constructor `c` of variant `v` with payload `values`.
    fn constructor_value(&mut self, v: usize, c: usize, values: Vec<ExprId>, span: Span) -> ExprId {
        let variant_name = self.variants[v].name.name.clone();
        let tag = self.module.alloc(ExprKind::Int { value: c as u64, suffix: None }, Span { end: span.start, ..span });
        let mut fields = vec![(Ident { name: Name::new(&tag_field(&variant_name)), span }, tag)];
        let constructors: Vec<(Name, Vec<TypeExpr>)> =
            self.variants[v].constructors.iter().map(|k| (k.name.name.clone(), k.payload.clone())).collect();
        for (k, (name, payload)) in constructors.iter().enumerate() {
            for (index, ty) in payload.iter().enumerate() {
                let value = if k == c { values[index] } else { self.zero(ty, span, 0) };
                fields.push((Ident { name: Name::new(&payload_field(name, index)), span }, value));
            }
        }
        self.module.alloc(ExprKind::Record(fields), span)
    }

    /// The alternatives of a pattern, from `l` to `r`.
    pub fn pattern(&mut self, first: PatternAlternative, rest: Vec<PatternAlternative>, l: u32, r: u32) -> Pattern {
        let mut alternatives = vec![first];
        alternatives.extend(rest);
        Pattern { alternatives, span: self.span(l, r) }
    }

    /// `C (a, b, ...)` in a pattern.
    pub fn constructor_pattern(&mut self, name: Lexeme, first: Lexeme, rest: Vec<Lexeme>) -> PatternAlternative {
        let mut names = vec![first];
        names.extend(rest);
        PatternAlternative::Constructor(name, names)
    }

    /// `match scrutinee with arms | last`, from `l` to `r`.
    pub fn match_(&mut self, scrutinee: ExprId, mut arms: Vec<Arm>, last: Arm, l: u32, r: u32) -> ExprId {
        arms.push(last);
        let span = self.span(l, r);
        let first_pattern = arms[0].0.span;
        let variant = self.matched_variant(&arms);
        let Ok(variant) = variant else { return self.module.alloc(ExprKind::Error, span) };
        let mut read = Vec::new();
        for (pattern, body) in arms {
            match self.read_arm(variant, &pattern, body) {
                Some(arm) => read.push(arm),
                None => return self.module.alloc(ExprKind::Error, span),
            }
        }
        let keyword = Span { end: span.start + "match".len() as u32, ..span };
        let reachable = self.reachable_arms(variant, read, keyword);
        let hidden = Ident {
            name: Name::new(&format!("{MATCH_VALUE_PREFIX}{}}}", self.match_names)),
            span: self.module.span(scrutinee),
        };
        self.match_names += 1;
        let test_span = keyword.to(self.module.span(scrutinee));
        let chain = self.arm_chain(variant, &hidden, reachable, test_span, span);
        let ty = variant.map(|v| {
            Box::new(TypeExpr::Named(Ident { name: self.variants[v].name.name.clone(), span: first_pattern }))
        });
        let kind =
            ExprKind::Let { binder: Binder::Name(hidden), ty, kind: LetKind::Immutable, value: scrutinee, body: chain };
        self.module.alloc(kind, span)
    }

    /// The variant whose constructors the patterns name (`None` for a match on integers or with names only);
    /// `Err` once reported.
    fn matched_variant(&mut self, arms: &[Arm]) -> Result<Option<usize>, ()> {
        let mut found: Option<(usize, Span)> = None;
        let mut integer: Option<Span> = None;
        for alternative in arms.iter().flat_map(|(p, _)| &p.alternatives) {
            match alternative {
                PatternAlternative::Name(_) => {}
                PatternAlternative::Int(literal) => integer = integer.or(Some(self.lexeme_span(*literal))),
                PatternAlternative::Constructor(name, _) => {
                    let span = self.lexeme_span(*name);
                    let Some((v, _)) = self.find_constructor(self.text_of(*name)) else {
                        let d = Diagnostic::error("E0235", format!("unknown constructor `{}`", self.text_of(*name)))
                            .primary(span, "no variant type of this file declares it before here")
                            .help("declare it in a `type t = A | B of ...` before its use");
                        self.diagnostics.push(d);
                        return Err(());
                    };
                    match found {
                        None => found = Some((v, span)),
                        Some((first, first_span)) if first != v => {
                            let d =
                                Diagnostic::error("E0235", "the patterns of this match name constructors of two types")
                                    .primary(span, format!("a constructor of `{}`", self.variants[v].name.name))
                                    .secondary(
                                        first_span,
                                        format!("a constructor of `{}`", self.variants[first].name.name),
                                    );
                            self.diagnostics.push(d);
                            return Err(());
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        if let (Some((_, constructor)), Some(integer)) = (found, integer) {
            let d = Diagnostic::error("E0235", "this match has both integer and constructor patterns")
                .primary(integer, "an integer")
                .secondary(constructor, "a constructor");
            self.diagnostics.push(d);
            return Err(());
        }
        Ok(found.map(|(v, _)| v))
    }

    /// An arm's test and bindings, or `None` (reported) where its pattern does not fit.
    fn read_arm(&mut self, variant: Option<usize>, pattern: &Pattern, body: ExprId) -> Option<ReadArm> {
        let several = pattern.alternatives.len() > 1;
        let mut constructors = Vec::new();
        let mut integers = Vec::new();
        let mut always = false;
        let mut bindings = Vec::new();
        for alternative in &pattern.alternatives {
            match alternative {
                PatternAlternative::Name(name) => {
                    always = true;
                    if self.text_of(*name) != "_" {
                        self.refuse_alternative_name(several, *name)?;
                        bindings.push((self.ident(*name), Binding::Whole));
                    }
                }
                PatternAlternative::Int(literal) => integers.push(self.int(*literal)),
                PatternAlternative::Constructor(name, names) => {
                    let (v, c) = self.find_constructor(self.text_of(*name))?;
                    debug_assert_eq!(Some(v), variant);
                    constructors.push(c);
                    let count = self.variants[v].constructors[c].payload.len();
                    let span = self
                        .lexeme_span(*name)
                        .to(names.last().map_or(self.lexeme_span(*name), |n| self.lexeme_span(*n)));
                    let fits = match names.len() {
                        0 => count == 0,
                        1 => count >= 1,
                        n => n == count,
                    };
                    if !fits {
                        let d = Diagnostic::error(
                            "E0235",
                            format!("wrong payload in a pattern of `{}`", self.text_of(*name)),
                        )
                        .primary(span, format!("`{}` has {}", self.text_of(*name), payload_values(count)));
                        self.diagnostics.push(d);
                        return None;
                    }
                    for (index, payload_name) in names.iter().enumerate() {
                        if self.text_of(*payload_name) == "_" {
                            continue;
                        }
                        self.refuse_alternative_name(several, *payload_name)?;
                        let binding = match (names.len(), count) {
                            (1, n) if n > 1 => Binding::Tuple(c),
                            _ => Binding::Field(c, index),
                        };
                        bindings.push((self.ident(*payload_name), binding));
                    }
                }
            }
        }
        let test = if always {
            Test::Always
        } else if !integers.is_empty() {
            Test::Integers(integers)
        } else {
            Test::Constructors(constructors)
        };
        Some(ReadArm { test, bindings, body, span: pattern.span })
    }

    /// E0235 for a name in a pattern of several alternatives (each would have to bind it).
    fn refuse_alternative_name(&mut self, several: bool, name: Lexeme) -> Option<()> {
        if !several {
            return Some(());
        }
        let d = Diagnostic::error("E0235", "a pattern with alternatives cannot bind a name")
            .primary(self.lexeme_span(name), "bound here")
            .help("write `_` here, or give each alternative an arm of its own");
        self.diagnostics.push(d);
        None
    }

    /// The arms some value reaches (W0005 for the others); E0236 if a value reaches none.
    fn reachable_arms(&mut self, variant: Option<usize>, arms: Vec<ReadArm>, keyword: Span) -> Vec<ReadArm> {
        let count = variant.map_or(0, |v| self.variants[v].constructors.len());
        let mut covered = vec![false; count];
        let mut always = false;
        let mut reachable = Vec::new();
        for arm in arms {
            let reached = !always
                && match &arm.test {
                    Test::Always => true,
                    Test::Constructors(cs) => cs.iter().any(|&c| !covered[c]),
                    Test::Integers(_) => true,
                };
            if !reached {
                let d = Diagnostic::warning("W0005", "this arm is never reached")
                    .primary(arm.span, "every value it matches is matched by an arm before it")
                    .help("remove the arm, or move it before the arm that takes its values");
                self.diagnostics.push(d);
                continue;
            }
            match &arm.test {
                Test::Always => always = true,
                Test::Constructors(cs) => cs.iter().for_each(|&c| covered[c] = true),
                Test::Integers(_) => {}
            }
            let exhausted = always || (variant.is_some() && covered.iter().all(|c| *c));
            reachable.push(arm);
            if exhausted {
                always = true;
            }
        }
        if !always {
            self.report_missing(variant, &covered, keyword);
        }
        reachable
    }

    /// E0236: the constructors (or integers) no arm matches.
    fn report_missing(&mut self, variant: Option<usize>, covered: &[bool], keyword: Span) {
        let d = match variant {
            Some(v) => {
                let missing: Vec<String> = self.variants[v]
                    .constructors
                    .iter()
                    .zip(covered)
                    .filter(|(_, covered)| !**covered)
                    .map(|(c, _)| format!("`{}`", c.name.name))
                    .collect();
                Diagnostic::error("E0236", format!("this match does not cover {}", join_words(&missing)))
                    .primary(keyword, format!("{} not matched", join_words(&missing)))
                    .help("add an arm for each, or a last arm `| _ -> ...`")
            }
            None => Diagnostic::error("E0236", "this match on integers does not cover every value")
                .primary(keyword, "no arm for the other values")
                .help("add a last arm `| _ -> ...`"),
        };
        self.diagnostics.push(d);
    }

    /// The arms as a chain of `if`s on the hidden variable `hidden` (the last arm, which the others leave the only
    /// possible one, without a test). Returns the chain's root.
    fn arm_chain(
        &mut self,
        variant: Option<usize>,
        hidden: &Ident,
        arms: Vec<ReadArm>,
        test_span: Span,
        span: Span,
    ) -> ExprId {
        let mut rest: Option<ExprId> = None;
        for arm in arms.into_iter().rev() {
            let start = arm.span.start;
            let body = self.arm_body(variant, hidden, &arm);
            rest = Some(match rest {
                None => body,
                Some(otherwise) => {
                    let cond = self.arm_test(variant, hidden, &arm.test, test_span);
                    let kind = ExprKind::If { cond, then_branch: body, else_branch: Some(otherwise) };
                    self.module.alloc(kind, Span { start, ..span })
                }
            });
        }
        rest.unwrap_or_else(|| self.module.alloc(ExprKind::Error, span))
    }

    /// `{match}.Tag_t = c || ...`, or `{match} = 3 || ...`.
    fn arm_test(&mut self, variant: Option<usize>, hidden: &Ident, test: &Test, span: Span) -> ExprId {
        let values: Vec<ExprId> = match (test, variant) {
            (Test::Constructors(cs), Some(_)) => cs
                .iter()
                .map(|&c| {
                    self.module.alloc(ExprKind::Int { value: c as u64, suffix: None }, Span { start: span.end, ..span })
                })
                .collect(),
            (Test::Integers(literals), _) => literals.clone(),
            _ => Vec::new(),
        };
        let mut test: Option<ExprId> = None;
        for value in values {
            let matched = self.hidden_value(hidden, span);
            let lhs = match variant {
                Some(v) => {
                    let field = Ident { name: Name::new(&tag_field(&self.variants[v].name.name)), span };
                    self.module.alloc(ExprKind::Field { record: matched, field }, span)
                }
                None => matched,
            };
            let equal = self.module.alloc(ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs: value }, span);
            test = Some(match test {
                None => equal,
                Some(before) => self.module.alloc(ExprKind::Binary { op: BinaryOp::Or, lhs: before, rhs: equal }, span),
            });
        }
        test.unwrap_or_else(|| self.module.alloc(ExprKind::Bool(true), span))
    }

    /// An arm's body inside the `let`s of the names its pattern binds.
    fn arm_body(&mut self, variant: Option<usize>, hidden: &Ident, arm: &ReadArm) -> ExprId {
        let mut body = arm.body;
        let end = self.module.span(arm.body);
        for (name, binding) in arm.bindings.iter().rev() {
            let value = self.bound_value(variant, hidden, binding, name.span);
            let kind =
                ExprKind::Let { binder: Binder::Name(name.clone()), ty: None, kind: LetKind::Immutable, value, body };
            body = self.module.alloc(kind, name.span.to(end));
        }
        body
    }

    /// What a pattern's name is bound to.
    fn bound_value(&mut self, variant: Option<usize>, hidden: &Ident, binding: &Binding, span: Span) -> ExprId {
        let field = |builder: &mut Self, c: usize, index: usize| {
            let v = variant.unwrap_or_default();
            let name = payload_field(&builder.variants[v].constructors[c].name.name, index);
            let record = builder.hidden_value(hidden, span);
            builder.module.alloc(ExprKind::Field { record, field: Ident { name: Name::new(&name), span } }, span)
        };
        match *binding {
            Binding::Whole => self.hidden_value(hidden, span),
            Binding::Field(c, index) => field(self, c, index),
            Binding::Tuple(c) => {
                let count = variant.map_or(0, |v| self.variants[v].constructors[c].payload.len());
                let components = (0..count).map(|index| field(self, c, index)).collect();
                self.module.alloc(ExprKind::Tuple(components), span)
            }
        }
    }

    fn hidden_value(&mut self, hidden: &Ident, span: Span) -> ExprId {
        let name = Ident { name: hidden.name.clone(), span };
        self.module.alloc(ExprKind::Var(Path { module: None, name }), span)
    }
}

/// "no payload", "one payload value", "2 payload values".
fn payload_values(count: usize) -> String {
    match count {
        0 => "no payload".to_string(),
        1 => "one payload value".to_string(),
        n => format!("{n} payload values"),
    }
}

/// What a constructor written without its payload lacks.
fn values_missing(count: usize) -> String {
    match count {
        1 => "its payload value is missing".to_string(),
        n => format!("its {n} payload values are missing"),
    }
}

/// "`A`", "`A` and `B`", "`A`, `B` and `C`".
fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
