//! Where the contents of `ref` cells and arrays live. In the emitted CUDA C a `ref` parameter is a C++ reference,
//! an array parameter a pointer, and `let p = r in` makes `p` another name for `r`'s storage (docs/language.md,
//! "Parameters"): a write through any name changes the variable that owns the storage. So each local has a slot
//! (`Walker::slots`): its own value, the owner's when it names another variable's storage (an alias, or a parameter
//! bound to the caller's variable, so a callee's writes land in the caller's variables), or a union when it names
//! one of several arrays (`if c then a1 else a2`, `select`): reading a union joins the contents of every array it
//! may name and how uniform the choice was; writing one joins into every one of them.

use crate::syntax::ast::{ExprId, ExprKind, MemorySpace};
use crate::types::{LocalId, Type};

use super::super::lattice::Value;
use super::Walker;

/// What the walker keeps for a local.
#[derive(Clone, Copy, Debug)]
pub(in crate::convergence) enum Slot {
    /// Its value (for a cell or an array it owns, its contents).
    Value(Value),
    /// It names the storage of another local (which holds a `Value`).
    Names(LocalId),
    /// It names one of several arrays: an index into `Walker::unions`.
    Union(u32),
}

/// An array local that names one of several arrays.
pub(in crate::convergence) struct Union {
    /// The variables owning the storage it may name (never unions themselves).
    pub(super) owners: Vec<LocalId>,
    /// How uniform the choice between them was (and their contents when it was made).
    pub(super) choice: Value,
}

impl Walker<'_> {
    /// The value held in the slot of a local that owns its storage.
    #[inline]
    fn owned(&self, owner: LocalId) -> Value {
        match self.slots.get(owner.0 as usize) {
            Some(Slot::Value(v)) => *v,
            _ => Value::uniform(),
        }
    }

    /// The value of `id`: its own, the contents of the storage it names, or of every array a union may name.
    #[inline(always)]
    pub(super) fn local(&self, id: LocalId) -> Value {
        match self.slots.get(id.0 as usize) {
            Some(Slot::Value(v)) => *v,
            Some(Slot::Names(owner)) => self.owned(*owner),
            Some(Slot::Union(index)) => self.union_value(*index),
            None => Value::uniform(),
        }
    }

    #[cold]
    fn union_value(&self, index: u32) -> Value {
        let union = &self.unions[index as usize];
        union.owners.iter().fold(union.choice, |acc, &owner| acc.join(self.owned(owner)))
    }

    /// Sets the value of `id` (the contents of the storage it names; of every array of a union). Nothing happens
    /// at an unreachable point.
    #[inline]
    pub(super) fn set_local(&mut self, id: LocalId, value: Value) {
        if self.dead {
            return;
        }
        match self.slots.get(id.0 as usize).copied() {
            Some(Slot::Value(_)) => self.slots[id.0 as usize] = Slot::Value(value),
            Some(Slot::Names(owner)) => self.set_owned(owner, value),
            Some(Slot::Union(index)) => {
                for i in 0..self.unions[index as usize].owners.len() {
                    let owner = self.unions[index as usize].owners[i];
                    self.set_owned(owner, value);
                }
            }
            None => {}
        }
    }

    fn set_owned(&mut self, owner: LocalId, value: Value) {
        if let Some(slot) = self.slots.get_mut(owner.0 as usize) {
            *slot = Slot::Value(value);
        }
    }

    /// Joins `value` into the contents of `id` (a weak update: an element or a field); through a union, into every
    /// array it may name, with the choice's level.
    pub(super) fn join_into(&mut self, id: LocalId, value: Value) {
        if self.dead {
            return;
        }
        match self.slots.get(id.0 as usize).copied() {
            Some(Slot::Value(old)) => self.slots[id.0 as usize] = Slot::Value(old.join(value)),
            Some(Slot::Names(owner)) => {
                let old = self.owned(owner);
                self.set_owned(owner, old.join(value));
            }
            Some(Slot::Union(index)) => {
                let value = value.join(self.unions[index as usize].choice);
                for i in 0..self.unions[index as usize].owners.len() {
                    let owner = self.unions[index as usize].owners[i];
                    let old = self.owned(owner);
                    self.set_owned(owner, old.join(value));
                }
            }
            None => {}
        }
    }

    pub(super) fn is_union(&self, id: LocalId) -> bool {
        matches!(self.slots.get(id.0 as usize), Some(Slot::Union(_)))
    }

    /// `id` owns its storage (a new cell or array, a parameter of a function analysed on its own), holding
    /// `value`. (Unlike `set_local`, this also happens where the point is unreachable: it declares, it does not
    /// assign.)
    pub(super) fn own_storage(&mut self, id: LocalId, value: Value) {
        if let Some(slot) = self.slots.get_mut(id.0 as usize) {
            *slot = Slot::Value(value);
        }
    }

    /// `id` names the storage of `owner`.
    pub(super) fn name_owner(&mut self, id: LocalId, owner: LocalId) {
        if owner != id {
            if let Some(slot) = self.slots.get_mut(id.0 as usize) {
                *slot = Slot::Names(owner);
            }
        }
    }

    /// The variables owning the storage that `names` refer to here, once each (unions replaced by what they may
    /// name).
    pub(super) fn owners_of(&self, names: &[LocalId]) -> Vec<LocalId> {
        let mut owners = Vec::new();
        for &name in names {
            match self.slots.get(name.0 as usize) {
                Some(Slot::Value(_)) if !owners.contains(&name) => owners.push(name),
                Some(Slot::Names(owner)) if !owners.contains(owner) => owners.push(*owner),
                Some(Slot::Union(index)) => {
                    for owner in &self.unions[*index as usize].owners {
                        if !owners.contains(owner) {
                            owners.push(*owner);
                        }
                    }
                }
                _ => {}
            }
        }
        owners
    }

    /// Makes `id` name the storage of `owners`: an alias of one, a union of several (chosen as uniformly as
    /// `choice`), or, with none, storage of its own holding `value`.
    pub(super) fn name_storage(&mut self, id: LocalId, owners: Vec<LocalId>, choice: Value, value: Value) {
        let Some(slot) = self.slots.get(id.0 as usize).copied() else { return };
        match owners.len() {
            0 => self.own_storage(id, value),
            1 => self.name_owner(id, owners[0]),
            _ => {
                let union = Union { owners, choice };
                // Reuse the union this local had in an earlier round or call, so loops do not grow the table.
                if let Slot::Union(index) = slot {
                    self.unions[index as usize] = union;
                } else {
                    self.unions.push(union);
                    self.slots[id.0 as usize] = Slot::Union(self.unions.len() as u32 - 1);
                }
            }
        }
    }

    /// `let local = value in` for a local of `ref` or array type: a new cell (`ref e`) owns its storage; anything
    /// else names the variables its value may evaluate to (`TypeInfo::aliases`).
    pub(super) fn bind_let_reference(&mut self, local: LocalId, value: ExprId, bound: Value) {
        let value = crate::storage::strip_annotations(self.module, value);
        if matches!(self.module.expr(value), ExprKind::Ref(_)) {
            self.own_storage(local, bound);
            return;
        }
        let owners = self.owners_of(self.types.aliased(local));
        self.name_storage(local, owners, bound, bound);
    }

    /// Is the storage `local` names tracked per write (local memory, a `ref` cell), rather than always
    /// thread-varying (shared memory) or tracked for the whole kernel (vectors)?
    pub(super) fn is_tracked_memory(&self, local: LocalId) -> bool {
        let owner = match self.slots.get(local.0 as usize) {
            Some(Slot::Value(_)) => local,
            Some(Slot::Names(owner)) => *owner,
            Some(Slot::Union(_)) => return true,
            None => return false,
        };
        let ty = &self.types.local(owner).ty;
        !matches!(ty, Type::Vector(_) | Type::Array { space: MemorySpace::Shared, .. })
    }
}
