//! "Did you mean" suggestions: the visible name closest to a misspelt one, by edit distance.
//!
//! Bounded whatever the input: a name longer than [`MAX_NAME_CHARS`] gets no suggestion (nobody misspells a
//! kilobyte-long name, and a megabyte-long one cost 19 s), at most [`MAX_CANDIDATES`] candidates are compared,
//! a candidate whose length alone puts it out of reach is skipped, and the distance is computed only in the
//! band of cells that can stay within the limit, stopping as soon as a row exceeds it. One check runs at most
//! [`MAX_SEARCHES`] searches: 16,000 unknown names among 16,000 kernels cost a search over every name for each,
//! and only the first 100 diagnostics of a file are reported anyway.

/// Longest name (in characters) that gets a suggestion.
pub(crate) const MAX_NAME_CHARS: usize = 64;
/// Most candidates compared for one name (the builtins and the names in scope come first).
pub(crate) const MAX_CANDIDATES: usize = 10_000;
/// Most searches one check runs; later unknown names get no suggestion.
pub(crate) const MAX_SEARCHES: usize = 1_000;

impl super::Checker<'_> {
    /// [`closest`], while this check has searches left.
    pub(crate) fn closest<'c>(&self, name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
        let left = self.suggestions_left.get();
        if left == 0 {
            return None;
        }
        self.suggestions_left.set(left - 1);
        closest(name, candidates)
    }
}

/// Edit distance between two strings, counted in characters: insertions, deletions, substitutions and
/// transpositions of adjacent characters (`piont` is one edit from `point`).
#[cfg(test)]
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    bounded_distance(&a, &b, a.len().max(b.len())).unwrap_or(usize::MAX)
}

/// The edit distance of `a` and `b` if it is at most `limit`. Only cells within `limit` of the diagonal are
/// computed (any path through another cell costs more), and the computation stops at a row whose every cell
/// already exceeds `limit`.
fn bounded_distance(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let beyond = limit + 1;
    let width = b.len() + 1;
    // Three rows (the transposition looks two back); cells outside the band hold `beyond`.
    let mut rows = [vec![beyond; width], vec![beyond; width], vec![beyond; width]];
    for (j, cell) in rows[0].iter_mut().enumerate().take(limit.min(b.len()) + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (current, previous, before) = (i % 3, (i + 2) % 3, (i + 1) % 3);
        let low = i.saturating_sub(limit).max(1);
        let high = (i + limit).min(b.len());
        rows[current].fill(beyond);
        if i <= limit {
            rows[current][0] = i;
        }
        let mut row_min = rows[current][0];
        for j in low..=high {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[previous][j] + 1).min(rows[current][j - 1] + 1).min(rows[previous][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[before][j - 2] + 1);
            }
            let best = best.min(beyond);
            rows[current][j] = best;
            row_min = row_min.min(best);
        }
        if row_min > limit {
            return None;
        }
    }
    let distance = rows[a.len() % 3][b.len()];
    (distance <= limit).then_some(distance)
}

/// The candidate closest to `name`, if one is close enough to be a plausible typo. Ties go to the earliest
/// candidate.
pub(crate) fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    // A cheap bound first: a character is at most 4 bytes.
    if name.len() > 4 * MAX_NAME_CHARS {
        return None;
    }
    let name_chars: Vec<char> = name.chars().collect();
    let length = name_chars.len();
    if length > MAX_NAME_CHARS {
        return None;
    }
    // A third of the name, at least one edit, and never every character (`z` does not suggest `x`).
    let mut limit = (length / 3).max(1).min(length.saturating_sub(1));
    let mut best: Option<&str> = None;
    let mut chars = Vec::with_capacity(MAX_NAME_CHARS);
    for candidate in candidates.into_iter().take(MAX_CANDIDATES) {
        // A candidate has at least a quarter as many characters as bytes, and at most as many.
        let too_long = candidate.len() > 4 * (length + limit);
        if candidate == name || candidate.starts_with('{') || too_long || candidate.len() + limit < length {
            continue;
        }
        chars.clear();
        chars.extend(candidate.chars());
        if let Some(distance) = bounded_distance(&name_chars, &chars, limit) {
            best = Some(candidate);
            // A later candidate must be strictly closer to win; none is closer than one edit.
            match distance.checked_sub(1) {
                Some(tighter) if tighter > 0 => limit = tighter,
                _ => break,
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("piont", "point"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        let (a, b): (Vec<char>, Vec<char>) = ("kitten".chars().collect(), "sitting".chars().collect());
        assert_eq!(bounded_distance(&a, &b, 3), Some(3));
        assert_eq!(bounded_distance(&a, &b, 2), None, "over the limit");
    }

    /// The banded computation agrees with the full one on every pair of short strings over a small alphabet.
    #[test]
    fn the_band_agrees_with_the_full_table() {
        fn full(a: &[char], b: &[char]) -> usize {
            let w = b.len() + 1;
            let mut d = vec![0usize; (a.len() + 1) * w];
            for i in 0..=a.len() {
                d[i * w] = i;
            }
            for (j, cell) in d.iter_mut().take(b.len() + 1).enumerate() {
                *cell = j;
            }
            for i in 1..=a.len() {
                for j in 1..=b.len() {
                    let cost = usize::from(a[i - 1] != b[j - 1]);
                    let mut best =
                        (d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1).min(d[(i - 1) * w + j - 1] + cost);
                    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                        best = best.min(d[(i - 2) * w + j - 2] + 1);
                    }
                    d[i * w + j] = best;
                }
            }
            d[a.len() * w + b.len()]
        }
        let words: Vec<Vec<char>> = (0..3u32.pow(5))
            .flat_map(|n| {
                (1..=5).map(move |len| (0..len).map(|k| ['a', 'b', 'c'][(n / 3u32.pow(k) % 3) as usize]).collect())
            })
            .collect();
        for a in words.iter().step_by(7) {
            for b in words.iter().step_by(5) {
                let exact = full(a, b);
                for limit in 0..=5 {
                    let expected = (exact <= limit).then_some(exact);
                    assert_eq!(bounded_distance(a, b, limit), expected, "{a:?} {b:?} limit {limit}");
                }
            }
        }
    }

    #[test]
    fn closest_respects_the_limit() {
        let names = ["thread_idx_x", "block_idx_x", "sqrt"];
        assert_eq!(closest("thread_id_x", names), Some("thread_idx_x"));
        assert_eq!(closest("sqtr", names), Some("sqrt"));
        assert_eq!(closest("zzzzzzzz", names), None);
        assert_eq!(closest("z", ["x", "y"]), None);
        assert_eq!(closest("ab", ["ba", "ab"]), Some("ba"), "an exact name is not a suggestion");
        assert_eq!(closest("lenght", ["lengths", "length"]), Some("length"), "the closer one wins");
        assert_eq!(closest("abcd", ["abce", "abcf"]), Some("abce"), "ties go to the first");
    }

    /// A megabyte-long name costs nothing (it took 19 s), and a huge candidate list is cut.
    #[test]
    fn closest_is_bounded() {
        let long = "a".repeat(1 << 20);
        let started = std::time::Instant::now();
        assert_eq!(closest(&long, ["a", "aa", long.as_str()]), None);
        let many: Vec<String> = (0..1_000_000).map(|i| format!("name_{i}")).collect();
        assert_eq!(closest("name_12", many.iter().map(String::as_str)), Some("name_1"));
        let tail = closest("name_999998", many.iter().map(String::as_str));
        let looked_at = &many[..MAX_CANDIDATES];
        assert!(tail.is_some_and(|t| looked_at.iter().any(|c| c == t)), "only the first {MAX_CANDIDATES}: {tail:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }
}
