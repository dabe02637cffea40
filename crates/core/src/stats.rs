//! Means and order statistics of samples, one convention for the whole workspace.
//!
//! Quantiles are by nearest rank on the sorted sample: the `q` quantile of
//! `n` values is the element at index `round((n - 1) q)`, so it is always
//! one of the values (an integer for integer samples) and the median of an
//! even-sized sample is the upper of the two middle values.

/// The `q` quantile (`0 ≤ q ≤ 1`, nearest rank) of a sample already
/// sorted ascending; `None` when the sample is empty.
pub fn quantile_sorted<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    let last = sorted.len().checked_sub(1)?;
    let i = (last as f64 * q.clamp(0.0, 1.0)).round() as usize;
    Some(sorted[i.min(last)])
}

/// The `q` quantile (nearest rank) of an unsorted sample of reals, NaN
/// when it is empty.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    quantile_sorted(&s, q).unwrap_or(f64::NAN)
}

/// The median (nearest rank) of an unsorted sample of reals, NaN when it
/// is empty.
pub fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

/// The arithmetic mean of a sample, NaN when it is empty.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        assert_eq!(quantile_sorted::<u64>(&[], 0.5), None);
        assert_eq!(quantile_sorted(&[7u64], 0.9), Some(7));
        let v: Vec<u64> = (1..=10).collect();
        assert_eq!(quantile_sorted(&v, 0.0), Some(1));
        assert_eq!(quantile_sorted(&v, 0.5), Some(6));
        assert_eq!(quantile_sorted(&v, 0.9), Some(9));
        assert_eq!(quantile_sorted(&v, 1.0), Some(10));
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 3.0);
        assert!(median(&[]).is_nan());
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
        assert!(mean(&[]).is_nan());
        assert_eq!(quantile(&[5.0, 1.0, 9.0, 3.0, 7.0], 0.25), 3.0);
    }
}
