//! The generated tables: the values the notes give, the identities, and that the checked-in `.sk` files are
//! exactly what the generator writes.

use skc_weno_tables::rational::Rational;
use skc_weno_tables::tables::{red_order_centre, red_order_face, red_order_left, red_order_right, Embedded, Scheme};

fn q(n: i128, d: i128) -> Rational {
    Rational::new(n, d)
}

#[test]
fn weno5_coefficients_match_the_notes() {
    let s = Scheme::new(3);
    assert_eq!(s.c[0], vec![q(1, 3), q(5, 6), q(-1, 6)]);
    assert_eq!(s.c[1], vec![q(-1, 6), q(5, 6), q(1, 3)]);
    assert_eq!(s.c[2], vec![q(1, 3), q(-7, 6), q(11, 6)]);
    assert_eq!(s.d, vec![q(3, 10), q(6, 10), q(1, 10)]);
    assert_eq!(s.scale, 3);
    assert_eq!(s.beta_int[0], vec![10, -31, 11, 25, -19, 4]);
    assert_eq!(s.beta_int[1], vec![4, -13, 5, 13, -13, 4]);
    assert_eq!(s.beta_int[2], vec![4, -19, 11, 25, -31, 10]);
}

#[test]
fn weno9_weights_have_no_typo() {
    let s = Scheme::new(5);
    assert_eq!(s.d, vec![q(5, 126), q(20, 63), q(10, 21), q(10, 63), q(1, 126)]);
}

#[test]
fn scales_and_largest_entry() {
    let scales: Vec<i128> = (2..=6).map(|k| Scheme::new(k).scale).collect();
    assert_eq!(scales, vec![1, 3, 240, 5040, 120960]);
    let largest = Scheme::new(6).beta_int.iter().flatten().map(|n| n.abs()).max().unwrap();
    assert_eq!(largest, 444003904);
    // 444003904 = 2^6 * 6937561 happens to be a float32, but other k = 6 entries are not: the tables are stored
    // in the compute precision (rounded once, from the exact integer).
    let inexact = Scheme::new(6).beta_int.iter().flatten().filter(|n| (**n as f32) as i128 != **n).count();
    assert!(inexact > 0);
}

#[test]
fn weno3_is_the_classical_one() {
    let s = Scheme::new(2);
    assert_eq!(s.c, vec![vec![q(1, 2), q(1, 2)], vec![q(-1, 2), q(3, 2)]]);
    assert_eq!(s.d, vec![q(2, 3), q(1, 3)]);
    assert_eq!(s.beta_int[0], vec![1, -2, 1]);
}

#[test]
fn embedding_zero_pads_lower_orders() {
    let e = Embedded::new(5);
    assert_eq!(e.c.len(), 5);
    // order 1 is first-order upwind
    assert_eq!(e.c[0][0][0], Rational::ONE);
    assert_eq!(e.d[0], vec![Rational::ONE, Rational::ZERO, Rational::ZERO, Rational::ZERO, Rational::ZERO]);
    assert!(e.beta[0].iter().flatten().all(|n| *n == 0));
    // order 3 inside k = 5: the WENO5 tables in the corner, zeros elsewhere
    let s3 = Scheme::new(3);
    for r in 0..5 {
        for j in 0..5 {
            let want = if r < 3 && j < 3 { s3.c[r][j] } else { Rational::ZERO };
            assert_eq!(e.c[2][r][j], want);
        }
    }
    for o in 0..5 {
        assert_eq!(e.d[o].iter().fold(Rational::ZERO, |a, b| a + *b), Rational::ONE);
    }
}

#[test]
fn golden_red_order_vectors() {
    let (n, k) = (10, 5);
    let faces = |f: fn(i64, i64, i64) -> i64| (0..=n).map(|i| f(i, n, k)).collect::<Vec<_>>();
    assert_eq!(faces(red_order_face), vec![1, 1, 2, 3, 4, 5, 4, 3, 2, 1, 1]);
    assert_eq!(faces(red_order_left), vec![1, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1]);
    assert_eq!(faces(red_order_right), vec![1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 1]);
    let centres: Vec<i64> = (0..n).map(|c| red_order_centre(c, n, k)).collect();
    assert_eq!(centres, vec![1, 2, 3, 4, 5, 5, 4, 3, 2, 1]);
}

#[test]
fn reduced_order_stencils_stay_inside() {
    for k in 2..=6i64 {
        for n in 1..=20i64 {
            for f in 0..=n {
                let o = red_order_left(f, n, k);
                // left bias: upwind cell f-1, cells f-o .. f+o-2
                if f >= 1 && f <= n - 1 + 1 && o > 1 {
                    assert!(f - o >= 0 && f + o - 2 < n, "left k={k} n={n} f={f} o={o}");
                }
                let o = red_order_right(f, n, k);
                if o > 1 {
                    assert!(f - o + 1 >= 0 && f + o - 1 < n, "right k={k} n={n} f={f} o={o}");
                }
            }
        }
    }
}

#[test]
fn checked_in_tables_are_up_to_date() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (path, text) in skc_weno_tables::sk::generated_files() {
        let on_disk = std::fs::read_to_string(root.join(&path)).unwrap_or_default();
        assert!(on_disk == text, "{path} is stale: run `cargo run -p skc-weno-tables --bin weno-gen`");
    }
}
