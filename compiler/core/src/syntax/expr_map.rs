//! [`ExprMap`]: a side table keyed by [`ExprId`], stored as a vector indexed by the id (naga's `HandleMap`).
//!
//! Why not a `HashMap<ExprId, T>`: the passes look up a resolution or a declared local for almost every
//! expression they visit, and hashing (SipHash) plus probing cost more than the rest of the visit. The API is the
//! subset of `HashMap`'s the passes use (`get(&e)`, `insert`, iteration over `(&ExprId, &T)`), so callers read the
//! same; iteration is in insertion order (a `HashMap`'s order was arbitrary).

use std::fmt;

use super::ast::ExprId;

#[derive(Clone)]
pub struct ExprMap<T: Slot> {
    /// The value of each expression, indexed by `ExprId`; grows on insertion.
    slots: Vec<T::Stored>,
    /// The keys present, in insertion order (for iteration).
    keys: Vec<ExprId>,
}

/// How an [`ExprMap`] keeps one expression's value: the table has a slot for every expression of the module,
/// so its size is that of the slot. Most values are kept as `Option<T>` (`option_slots!`); an id can keep
/// itself, a value no module reaches meaning "none" (`types::LocalId`, in four bytes where `Option<LocalId>`
/// takes eight).
pub trait Slot: Sized {
    type Stored: Clone;
    const EMPTY: Self::Stored;
    fn read(stored: &Self::Stored) -> Option<&Self>;
    fn read_mut(stored: &mut Self::Stored) -> Option<&mut Self>;
    /// Stores `value`, returning the value it replaces.
    fn write(stored: &mut Self::Stored, value: Self) -> Option<Self>;
    fn take(stored: &mut Self::Stored) -> Option<Self>;
}

/// [`Slot`] as `Option<T>`, for each of the types given.
macro_rules! option_slots {
    ($($ty:ty),*) => {$(
        impl $crate::syntax::expr_map::Slot for $ty {
            type Stored = Option<$ty>;
            const EMPTY: Option<$ty> = None;
            #[inline]
            fn read(stored: &Option<$ty>) -> Option<&$ty> {
                stored.as_ref()
            }
            #[inline]
            fn read_mut(stored: &mut Option<$ty>) -> Option<&mut $ty> {
                stored.as_mut()
            }
            #[inline]
            fn write(stored: &mut Option<$ty>, value: $ty) -> Option<$ty> {
                stored.replace(value)
            }
            #[inline]
            fn take(stored: &mut Option<$ty>) -> Option<$ty> {
                stored.take()
            }
        }
    )*};
}
pub(crate) use option_slots;

option_slots!(usize, bool);

impl<T: Slot> Default for ExprMap<T> {
    fn default() -> Self {
        ExprMap { slots: Vec::new(), keys: Vec::new() }
    }
}

impl<T: Slot> ExprMap<T> {
    pub fn new() -> ExprMap<T> {
        ExprMap::default()
    }

    /// An empty map with room for the expressions of a module of `expr_count` expressions.
    pub fn with_expr_count(expr_count: usize) -> ExprMap<T> {
        let mut slots = Vec::with_capacity(expr_count);
        slots.resize(expr_count, T::EMPTY);
        ExprMap { slots, keys: Vec::new() }
    }

    /// Room for `additional` more keys, where the caller knows about how many it will insert.
    pub fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
    }

    #[inline]
    pub fn get(&self, e: &ExprId) -> Option<&T> {
        self.slots.get(e.index()).and_then(T::read)
    }

    #[inline]
    pub fn get_mut(&mut self, e: &ExprId) -> Option<&mut T> {
        self.slots.get_mut(e.index()).and_then(T::read_mut)
    }

    pub fn contains_key(&self, e: &ExprId) -> bool {
        self.get(e).is_some()
    }

    /// Sets the value of `e`, returning the previous one.
    #[inline]
    pub fn insert(&mut self, e: ExprId, value: T) -> Option<T> {
        if e.index() >= self.slots.len() {
            self.slots.resize(e.index() + 1, T::EMPTY);
        }
        let old = T::write(&mut self.slots[e.index()], value);
        if old.is_none() {
            self.keys.push(e);
        }
        old
    }

    /// Removes the value of `e` (linear in the number of keys: the passes never remove on a hot path).
    pub fn remove(&mut self, e: &ExprId) -> Option<T> {
        let old = T::take(self.slots.get_mut(e.index())?)?;
        self.keys.retain(|k| k != e);
        Some(old)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// `(&ExprId, &T)` pairs in insertion order.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { map: self, keys: self.keys.iter() }
    }

    pub fn keys(&self) -> impl Iterator<Item = &ExprId> + '_ {
        self.keys.iter()
    }

    pub fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.iter().map(|(_, v)| v)
    }
}

/// The iterator of [`ExprMap::iter`].
pub struct Iter<'a, T: Slot> {
    map: &'a ExprMap<T>,
    keys: std::slice::Iter<'a, ExprId>,
}

impl<'a, T: Slot> Iterator for Iter<'a, T> {
    type Item = (&'a ExprId, &'a T);

    fn next(&mut self) -> Option<Self::Item> {
        let map = self.map;
        self.keys.find_map(|k| map.get(k).map(|v| (k, v)))
    }
}

impl<'a, T: Slot> IntoIterator for &'a ExprMap<T> {
    type Item = (&'a ExprId, &'a T);
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Slot + fmt::Debug> fmt::Debug for ExprMap<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T: Slot + PartialEq> PartialEq for ExprMap<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_map() {
        let mut map: ExprMap<usize> = ExprMap::new();
        assert_eq!(map.insert(ExprId(5), 10), None);
        assert_eq!(map.insert(ExprId(2), 20), None);
        assert_eq!(map.insert(ExprId(5), 30), Some(10));
        assert_eq!(map.get(&ExprId(5)), Some(&30));
        assert_eq!(map.get(&ExprId(3)), None);
        assert_eq!(map.get(&ExprId(99)), None);
        assert_eq!(map.len(), 2);
        let pairs: Vec<(ExprId, usize)> = map.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(pairs, vec![(ExprId(5), 30), (ExprId(2), 20)]);
        assert_eq!(map.remove(&ExprId(5)), Some(30));
        assert_eq!(map.len(), 1);
        assert!(!map.contains_key(&ExprId(5)));
    }
}
