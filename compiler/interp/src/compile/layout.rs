//! What the compiler decides for the whole program before compiling functions: how many registers (words) a value
//! of each type takes, where each shared array and constant array lives, the words of each constant, and which
//! expressions contain an assignment (an operand read from a mutable variable is copied before a later operand
//! that may assign it).

use std::collections::HashMap;

use skc_core::syntax::ast::{ExprId, ExprKind, MemorySpace, Module};
use skc_core::types::{ArraySize, ConstValue, ConstantId, LocalId, Mutability, Resolution, Type, TypeInfo};

use crate::memory::{handle, Space};
use crate::value::Scalar;

/// Words (registers) a value of `ty` takes: 0 for unit, 1 for a scalar or a handle (vector, array, `ref` cell),
/// the sum of the fields for a record.
pub fn slots(ty: &Type, types: &TypeInfo) -> u32 {
    match ty {
        Type::Unit => 0,
        Type::Record(id) => {
            types.records.get(id.0 as usize).map(|r| r.fields.iter().map(|(_, t)| slots(t, types)).sum()).unwrap_or(1)
        }
        _ => 1,
    }
}

/// Words an element of an array takes in memory: a row of a multi-dimensional array is stored whole (`n` of its
/// own elements), anything else as `slots` says.
pub fn stored_words(ty: &Type, types: &TypeInfo) -> u32 {
    match ty {
        Type::Array { elem, size: ArraySize::Const(n), .. } => n.saturating_mul(stored_words(elem, types)),
        _ => slots(ty, types),
    }
}

pub struct Layout<'a> {
    pub module: &'a Module,
    pub types: &'a TypeInfo,
    /// Offset in the block's shared memory of each fixed-size shared array, by its `LetArray`.
    pub shared_offsets: HashMap<ExprId, u32>,
    pub static_shared: u32,
    /// The value of each constant: its words for a scalar, a handle for an array.
    pub constant_values: Vec<u64>,
    pub constant_words: Vec<u64>,
    /// Does the expression contain an assignment (`:=`)?
    has_assign: Vec<bool>,
}

impl<'a> Layout<'a> {
    pub fn new(module: &'a Module, types: &'a TypeInfo) -> Layout<'a> {
        let mut layout = Layout {
            module,
            types,
            shared_offsets: HashMap::new(),
            static_shared: 0,
            constant_values: Vec::new(),
            constant_words: Vec::new(),
            has_assign: assignments(module),
        };
        layout.place_shared_arrays();
        layout.place_constants();
        layout
    }

    fn place_shared_arrays(&mut self) {
        for (index, kind) in self.module.exprs.iter().enumerate() {
            let ExprKind::LetArray { space: MemorySpace::Shared, .. } = kind else { continue };
            let e = ExprId(index as u32);
            let Some(local) = self.types.declared_local.get(&e) else { continue };
            if let Type::Array { elem, size: ArraySize::Const(n), .. } = &self.types.local(*local).ty {
                self.shared_offsets.insert(e, self.static_shared);
                self.static_shared += n * stored_words(elem, self.types);
            }
        }
    }

    fn place_constants(&mut self) {
        for info in &self.types.constants {
            let value = match (&info.value, &info.ty) {
                (ConstValue::Array(items), Type::ConstArray { elem, .. }) => {
                    let base = self.constant_words.len() as u32;
                    let scalar = Scalar::of(elem).unwrap_or(Scalar::Int32);
                    for item in items {
                        self.constant_words.push(constant_word(item, scalar));
                    }
                    handle(Space::Const, base, items.len() as u32)
                }
                (value, ty) => constant_word(value, Scalar::of(ty).unwrap_or(Scalar::Int32)),
            };
            self.constant_values.push(value);
        }
    }

    pub fn constant(&self, id: ConstantId) -> u64 {
        self.constant_values.get(id.0 as usize).copied().unwrap_or(0)
    }

    /// The distinct constant words `body` uses: its literals, the constants it names, and the step of its `for`
    /// loops (1), in order of first use.
    pub fn constants_of(&self, body: ExprId) -> Vec<u64> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![body];
        while let Some(e) = stack.pop() {
            let Some(kind) = self.module.exprs.get(e.index()) else { continue };
            let bits = match kind {
                ExprKind::Int { value, .. } => Some(int_literal_bits(*value, self.ty(e))),
                ExprKind::Float { value, .. } => Some(float_literal_bits(*value, self.ty(e))),
                ExprKind::Bool(b) => Some(*b as u64),
                ExprKind::For { .. } => Some(1),
                ExprKind::Var(_) | ExprKind::Global(_) => match self.types.resolution(e) {
                    Some(Resolution::Constant(id)) => Some(self.constant(id)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(bits) = bits {
                if seen.insert(bits) {
                    out.push(bits);
                }
            }
            let mark = stack.len();
            self.module.push_children(e, &mut stack);
            stack[mark..].reverse();
        }
        out
    }

    pub fn has_assign(&self, e: ExprId) -> bool {
        self.has_assign.get(e.index()).copied().unwrap_or(true)
    }

    pub fn ty(&self, e: ExprId) -> &'a Type {
        self.types.type_of(e)
    }

    pub fn slots_of(&self, e: ExprId) -> u32 {
        slots(self.ty(e), self.types)
    }

    pub fn local_ty(&self, id: LocalId) -> &'a Type {
        &self.types.local(id).ty
    }

    /// Is the value of `e` read straight from a mutable variable's registers (so a later assignment changes it)?
    pub fn borrows_mutable(&self, mut e: ExprId) -> bool {
        loop {
            match self.module.expr(e) {
                ExprKind::Var(_) => {
                    return matches!(self.types.resolution(e), Some(Resolution::Local(id))
                        if self.types.local(id).mutability == Mutability::Mutable)
                }
                ExprKind::Field { record, .. } => e = *record,
                ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => e = *body,
                ExprKind::Seq(_, rest) => e = *rest,
                ExprKind::Annot { expr, .. } => e = *expr,
                ExprKind::Pragma { body, .. } => e = *body,
                _ => return false,
            }
        }
    }
}

/// The bits of an integer literal of type `ty` (`0xFFFFFFFF` as an int32 is -1).
pub fn int_literal_bits(value: u64, ty: &Type) -> u64 {
    match Scalar::of(ty).unwrap_or(Scalar::Int32) {
        Scalar::Int32 | Scalar::UInt32 => value as u32 as u64,
        Scalar::Float32 => (value as f32).to_bits() as u64,
        Scalar::Float64 => (value as f64).to_bits(),
        half @ (Scalar::Float16 | Scalar::BFloat16) => half.from_i128(i128::from(value)),
        Scalar::Bool => (value != 0) as u64,
        Scalar::Int64 | Scalar::UInt64 => value,
    }
}

pub fn float_literal_bits(value: f64, ty: &Type) -> u64 {
    Scalar::of(ty).unwrap_or(Scalar::Float32).from_f64(value)
}

/// The word of a scalar constant.
pub fn constant_word(value: &ConstValue, scalar: Scalar) -> u64 {
    match value {
        ConstValue::Int(i) => scalar.from_i128(*i as i128),
        ConstValue::Float(f) => scalar.from_f64(*f),
        ConstValue::Bool(b) => *b as u64,
        ConstValue::Array(_) => 0,
    }
}

/// For every expression: does it contain an `Assign`? (An explicit post-order walk: sequences nest to the right
/// and can be thousands deep.)
fn assignments(module: &Module) -> Vec<bool> {
    let n = module.exprs.len();
    let mut result = vec![false; n];
    let mut done = vec![false; n];
    let mut children = Vec::new();
    for root in 0..n {
        if done[root] {
            continue;
        }
        let mut stack = vec![(ExprId(root as u32), false)];
        while let Some((e, expanded)) = stack.pop() {
            if done[e.index()] {
                continue;
            }
            children.clear();
            module.push_children(e, &mut children);
            if !expanded {
                stack.push((e, true));
                stack.extend(children.iter().filter(|c| !done[c.index()]).map(|c| (*c, false)));
                continue;
            }
            let own = matches!(module.expr(e), ExprKind::Assign { .. });
            result[e.index()] = own || children.iter().any(|c| result[c.index()]);
            done[e.index()] = true;
        }
    }
    result
}
