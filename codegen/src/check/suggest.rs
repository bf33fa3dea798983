//! "Did you mean" suggestions by edit distance.

/// The candidate closest to `name`, if it is close enough to be a likely typo: within an edit
/// distance of a third of its length (a swap of two neighbours counts as one edit), or else
/// the candidate that `name` starts with (`maximum` → `max`) or that starts with `name`
/// (`fast` → `fastmath`).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = name.chars().count() / 3;
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    candidates
        .iter()
        .map(|c| (distance(name, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
        .or_else(|| {
            candidates
                .iter()
                .filter(|c| c.len() >= 3 && name.starts_with(**c))
                .max_by_key(|c| c.len())
                .copied()
        })
        .or_else(|| {
            candidates
                .iter()
                .filter(|c| name.len() >= 3 && c.starts_with(name))
                .min_by_key(|c| c.len())
                .copied()
        })
}

/// Edit distance over chars, where a swap of two neighbours is one edit (optimal string
/// alignment).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_near_names_only() {
        let names = ["thread_idx", "block_idx", "sync_threads"];
        assert_eq!(closest("thread_id", names), Some("thread_idx"));
        assert_eq!(closest("syncthreads", names), Some("sync_threads"));
        assert_eq!(closest("completely_else", names), None);
        assert_eq!(closest("inptu", ["input", "out"]), Some("input"));
        assert_eq!(closest("maximum", ["min", "max"]), Some("max"));
        assert_eq!(closest("fast", ["fastmath", "unchecked"]), Some("fastmath"));
    }
}
