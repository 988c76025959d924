//! "Did you mean" suggestions: the visible name closest to a misspelt one, by edit distance.

/// Edit distance between two strings, counted in characters: insertions, deletions, substitutions and
/// transpositions of adjacent characters (`piont` is one edit from `point`).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, row) in d.chunks_mut(width).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best =
                (d[(i - 1) * width + j] + 1).min(d[i * width + j - 1] + 1).min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The candidate closest to `name`, if one is close enough to be a plausible typo. Ties go to the earliest
/// candidate.
pub(crate) fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let length = name.chars().count();
    // A third of the name, at least one edit, and never every character (`z` does not suggest `x`).
    let limit = (length / 3).max(1).min(length.saturating_sub(1));
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        if candidate == name || candidate.starts_with('{') {
            continue;
        }
        let distance = edit_distance(name, candidate);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
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
    }

    #[test]
    fn closest_respects_the_limit() {
        let names = ["thread_idx_x", "block_idx_x", "sqrt"];
        assert_eq!(closest("thread_id_x", names), Some("thread_idx_x"));
        assert_eq!(closest("sqtr", names), Some("sqrt"));
        assert_eq!(closest("zzzzzzzz", names), None);
        assert_eq!(closest("z", ["x", "y"]), None);
    }
}
