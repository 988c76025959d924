//! Where the contents of `ref` cells and arrays live. In the emitted CUDA C a `ref` parameter is a C++ reference,
//! an array parameter a pointer, and `let p = r in` makes `p` another name for `r`'s storage (docs/language.md,
//! "Parameters"): a write through any name changes the variable that owns the storage. So each local has a slot
//! (`Walker::cells`): its own, the owner's when it names another variable's storage (an alias, or a parameter
//! bound to the caller's variable, so a callee's writes land in the caller's variables), or a union when it names
//! one of several arrays (`if c then a1 else a2`, `select`): reading a union joins the contents of every array it
//! may name and how uniform the choice was; writing one joins into every one of them.

use crate::syntax::ast::{ExprId, ExprKind, MemorySpace};
use crate::types::{LocalId, Type};

use super::super::lattice::Value;
use super::Walker;

/// Marks a slot number as an index into `Walker::unions`.
pub(super) const UNION: u32 = 1 << 31;

/// An array local that names one of several arrays.
pub(in crate::convergence) struct Union {
    /// The variables owning the storage it may name (never unions themselves).
    pub(super) owners: Vec<LocalId>,
    /// How uniform the choice between them was (and their contents when it was made).
    pub(super) choice: Value,
}

impl Walker<'_> {
    /// The value of `id`: its own, the contents of the storage it names, or of every array a union may name.
    #[inline]
    pub(super) fn local(&self, id: LocalId) -> Value {
        match self.cells.get(id.0 as usize) {
            Some(&slot) if slot & UNION == 0 => self.locals[slot as usize],
            Some(&slot) => self.union_value(slot & !UNION),
            None => Value::uniform(),
        }
    }

    fn union_value(&self, index: u32) -> Value {
        let union = &self.unions[index as usize];
        union.owners.iter().fold(union.choice, |acc, &owner| acc.join(self.locals[owner.0 as usize]))
    }

    /// Sets the value of `id` (the contents of the storage it names; of every array of a union). Nothing happens
    /// at an unreachable point.
    #[inline]
    pub(super) fn set_local(&mut self, id: LocalId, value: Value) {
        if self.dead {
            return;
        }
        match self.cells.get(id.0 as usize) {
            Some(&slot) if slot & UNION == 0 => self.locals[slot as usize] = value,
            Some(&slot) => {
                for i in 0..self.unions[(slot & !UNION) as usize].owners.len() {
                    let owner = self.unions[(slot & !UNION) as usize].owners[i];
                    self.locals[owner.0 as usize] = value;
                }
            }
            None => {}
        }
    }

    /// Joins `value` into the contents of `id` (a weak update: an element or a field); through a union, into every
    /// array it may name, with the choice's level.
    pub(super) fn join_into(&mut self, id: LocalId, value: Value) {
        if self.dead {
            return;
        }
        match self.cells.get(id.0 as usize) {
            Some(&slot) if slot & UNION == 0 => {
                let old = self.locals[slot as usize];
                self.locals[slot as usize] = old.join(value);
            }
            Some(&slot) => {
                let index = (slot & !UNION) as usize;
                let value = value.join(self.unions[index].choice);
                for i in 0..self.unions[index].owners.len() {
                    let owner = self.unions[index].owners[i].0 as usize;
                    self.locals[owner] = self.locals[owner].join(value);
                }
            }
            None => {}
        }
    }

    pub(super) fn is_union(&self, id: LocalId) -> bool {
        self.cells.get(id.0 as usize).is_some_and(|&slot| slot & UNION != 0)
    }

    /// `id` owns its storage (a new cell or array, a parameter of a function analysed on its own).
    pub(super) fn own_storage(&mut self, id: LocalId) {
        if let Some(slot) = self.cells.get_mut(id.0 as usize) {
            *slot = id.0;
        }
    }

    /// The variables owning the storage that `names` refer to here, once each (unions replaced by what they may
    /// name).
    pub(super) fn owners_of(&self, names: &[LocalId]) -> Vec<LocalId> {
        let mut owners = Vec::new();
        for name in names {
            match self.cells.get(name.0 as usize) {
                Some(&slot) if slot & UNION == 0 => {
                    let owner = LocalId(slot);
                    if !owners.contains(&owner) {
                        owners.push(owner);
                    }
                }
                Some(&slot) => {
                    for owner in &self.unions[(slot & !UNION) as usize].owners {
                        if !owners.contains(owner) {
                            owners.push(*owner);
                        }
                    }
                }
                None => {}
            }
        }
        owners
    }

    /// Makes `id` name the storage of `owners`: an alias of one, a union of several (chosen as uniformly as
    /// `choice`), or, with none, storage of its own holding `value`.
    pub(super) fn name_storage(&mut self, id: LocalId, owners: Vec<LocalId>, choice: Value, value: Value) {
        let Some(slot) = self.cells.get(id.0 as usize).copied() else { return };
        match owners.len() {
            0 => {
                self.own_storage(id);
                self.set_local(id, value);
            }
            1 if owners[0] != id => self.cells[id.0 as usize] = owners[0].0,
            1 => {}
            _ => {
                // Reuse the union this local had in an earlier round or call, so loops do not grow the table.
                let union = Union { owners, choice };
                if slot & UNION != 0 {
                    self.unions[(slot & !UNION) as usize] = union;
                } else {
                    self.unions.push(union);
                    self.cells[id.0 as usize] = (self.unions.len() as u32 - 1) | UNION;
                }
            }
        }
    }

    /// `let local = value in` for a local of `ref` or array type: a new cell (`ref e`) owns its storage; anything
    /// else names the variables its value may evaluate to (`TypeInfo::aliases`).
    pub(super) fn bind_let_reference(&mut self, local: LocalId, value: ExprId, bound: Value) {
        let value = crate::storage::strip_annotations(self.module, value);
        if matches!(self.module.expr(value), ExprKind::Ref(_)) {
            self.own_storage(local);
            self.set_local(local, bound);
            return;
        }
        let owners = self.owners_of(self.types.aliased(local));
        self.name_storage(local, owners, bound, bound);
    }

    /// Is the storage `local` names tracked per write (local memory, a `ref` cell), rather than always
    /// thread-varying (shared memory) or tracked for the whole kernel (vectors)?
    pub(super) fn is_tracked_memory(&self, local: LocalId) -> bool {
        let owner = match self.cells.get(local.0 as usize) {
            Some(&slot) if slot & UNION == 0 => LocalId(slot),
            Some(_) => return true,
            None => return false,
        };
        let ty = &self.types.local(owner).ty;
        !matches!(ty, Type::Vector(_) | Type::Array { space: MemorySpace::Shared, .. })
    }
}
