//! [`ExprMap`]: a side table keyed by [`ExprId`], stored as a vector indexed by the id (naga's `HandleMap`).
//!
//! Why not a `HashMap<ExprId, T>`: the passes look up a resolution or a declared local for almost every
//! expression they visit, and hashing (SipHash) plus probing cost more than the rest of the visit. The API is the
//! subset of `HashMap`'s the passes use (`get(&e)`, `insert`, iteration over `(&ExprId, &T)`), so callers read the
//! same; iteration is in insertion order (a `HashMap`'s order was arbitrary).

use std::fmt;

use super::ast::ExprId;

#[derive(Clone)]
pub struct ExprMap<T> {
    /// The value of each expression, indexed by `ExprId`; grows on insertion.
    slots: Vec<Option<T>>,
    /// The keys present, in insertion order (for iteration).
    keys: Vec<ExprId>,
}

impl<T> Default for ExprMap<T> {
    fn default() -> Self {
        ExprMap { slots: Vec::new(), keys: Vec::new() }
    }
}

impl<T> ExprMap<T> {
    pub fn new() -> ExprMap<T> {
        ExprMap::default()
    }

    /// An empty map with room for the expressions of a module of `expr_count` expressions.
    pub fn with_expr_count(expr_count: usize) -> ExprMap<T> {
        let mut slots = Vec::with_capacity(expr_count);
        slots.resize_with(expr_count, || None);
        ExprMap { slots, keys: Vec::new() }
    }

    /// Room for `additional` more keys, where the caller knows about how many it will insert.
    pub fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
    }

    #[inline]
    pub fn get(&self, e: &ExprId) -> Option<&T> {
        self.slots.get(e.index()).and_then(Option::as_ref)
    }

    #[inline]
    pub fn get_mut(&mut self, e: &ExprId) -> Option<&mut T> {
        self.slots.get_mut(e.index()).and_then(Option::as_mut)
    }

    pub fn contains_key(&self, e: &ExprId) -> bool {
        self.get(e).is_some()
    }

    /// Sets the value of `e`, returning the previous one.
    #[inline]
    pub fn insert(&mut self, e: ExprId, value: T) -> Option<T> {
        if e.index() >= self.slots.len() {
            self.slots.resize_with(e.index() + 1, || None);
        }
        let old = self.slots[e.index()].replace(value);
        if old.is_none() {
            self.keys.push(e);
        }
        old
    }

    /// Removes the value of `e` (linear in the number of keys: the passes never remove on a hot path).
    pub fn remove(&mut self, e: &ExprId) -> Option<T> {
        let old = self.slots.get_mut(e.index())?.take()?;
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
pub struct Iter<'a, T> {
    map: &'a ExprMap<T>,
    keys: std::slice::Iter<'a, ExprId>,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = (&'a ExprId, &'a T);

    fn next(&mut self) -> Option<Self::Item> {
        let map = self.map;
        self.keys.find_map(|k| map.get(k).map(|v| (k, v)))
    }
}

impl<'a, T> IntoIterator for &'a ExprMap<T> {
    type Item = (&'a ExprId, &'a T);
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for ExprMap<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for ExprMap<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_map() {
        let mut map = ExprMap::new();
        assert_eq!(map.insert(ExprId(5), "a"), None);
        assert_eq!(map.insert(ExprId(2), "b"), None);
        assert_eq!(map.insert(ExprId(5), "c"), Some("a"));
        assert_eq!(map.get(&ExprId(5)), Some(&"c"));
        assert_eq!(map.get(&ExprId(3)), None);
        assert_eq!(map.get(&ExprId(99)), None);
        assert_eq!(map.len(), 2);
        let pairs: Vec<(ExprId, &str)> = map.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(pairs, vec![(ExprId(5), "c"), (ExprId(2), "b")]);
        assert_eq!(map.remove(&ExprId(5)), Some("c"));
        assert_eq!(map.len(), 1);
        assert!(!map.contains_key(&ExprId(5)));
    }
}
