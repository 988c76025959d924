//! The arithmetic of a 3-D grid cut along z into slabs, one per GPU (pure; checked in CI): which planes each slab
//! owns, where its halo planes sit in its padded array, which element ranges it sends to and receives from its
//! neighbours, and the periodic wrap of a padded index to the global cell it stands for.
//!
//! A slab of `nl` planes is stored as weno_advection.sk lays out a grid with halo `h`: padded plane `p` (0 ..
//! nl + 2h - 1) of `plane_len = (nx + 2h) (ny + 2h)` elements; interior plane `l` is padded plane `l + h`. z is
//! periodic over the whole grid, so slab 0's lower neighbour is the last slab.

use std::ops::Range;

/// A global grid of `n` cells with halo `h`, cut along z into `parts` slabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decomposition {
    pub n: [usize; 3],
    pub h: usize,
    pub parts: usize,
}

/// What one slab owns and exchanges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slab {
    pub rank: usize,
    /// The global z planes it owns.
    pub planes: Range<usize>,
    /// The ranks below and above (periodic; itself on one slab).
    pub lower: usize,
    pub upper: usize,
}

impl Decomposition {
    /// Fails when a slab would be thinner than 2h planes: its boundary planes (those that read halos) would then
    /// overlap, and its interior part that overlaps the exchange would be empty or negative.
    pub fn new(n: [usize; 3], h: usize, parts: usize) -> Result<Decomposition, String> {
        if parts == 0 || h == 0 || n.contains(&0) {
            return Err(format!("a decomposition of {n:?} cells, halo {h}, into {parts} slabs"));
        }
        let thinnest = n[2] / parts;
        if thinnest < 2 * h {
            return Err(format!(
                "{} planes over {parts} slabs leave {thinnest} planes to some slab; the halo {h} needs at least {}",
                n[2],
                2 * h
            ));
        }
        if n[0] < h || n[1] < h {
            return Err(format!("x and y ({} and {}) must hold at least the halo {h}", n[0], n[1]));
        }
        Ok(Decomposition { n, h, parts })
    }

    /// Slab `rank`: planes balanced to within one.
    pub fn slab(&self, rank: usize) -> Slab {
        let ranges = skc_runtime::split_aligned(self.n[2], self.parts, 1);
        Slab {
            rank,
            planes: ranges[rank].clone(),
            lower: (rank + self.parts - 1) % self.parts,
            upper: (rank + 1) % self.parts,
        }
    }

    pub fn slabs(&self) -> Vec<Slab> {
        (0..self.parts).map(|r| self.slab(r)).collect()
    }

    /// Elements of one padded plane.
    pub fn plane_len(&self) -> usize {
        (self.n[0] + 2 * self.h) * (self.n[1] + 2 * self.h)
    }

    /// Elements of a slab of `nl` planes with its halos.
    pub fn padded_len(&self, nl: usize) -> usize {
        self.plane_len() * (nl + 2 * self.h)
    }

    /// The element range of padded planes `planes`.
    fn elements(&self, planes: Range<usize>) -> Range<usize> {
        planes.start * self.plane_len()..planes.end * self.plane_len()
    }

    /// What a slab of `nl` planes sends up: its top h interior planes (to the upper neighbour's lower halo).
    pub fn send_up(&self, nl: usize) -> Range<usize> {
        self.elements(nl..nl + self.h)
    }

    /// What it sends down: its bottom h interior planes (to the lower neighbour's upper halo).
    pub fn send_down(&self) -> Range<usize> {
        self.elements(self.h..2 * self.h)
    }

    /// Where it receives from below: its lower halo planes.
    pub fn lower_halo(&self) -> Range<usize> {
        self.elements(0..self.h)
    }

    /// Where it receives from above: its upper halo planes.
    pub fn upper_halo(&self, nl: usize) -> Range<usize> {
        self.elements(nl + self.h..nl + 2 * self.h)
    }

    /// The interior planes (slab-local) whose tendency reads no halo plane: computed while halos travel.
    pub fn inner_planes(&self, nl: usize) -> Range<usize> {
        self.h..nl - self.h
    }

    /// The interior planes next to the halos (slab-local): computed once the halos have arrived.
    pub fn edge_planes(&self, nl: usize) -> [Range<usize>; 2] {
        [0..self.h, nl - self.h..nl]
    }

    /// The global cell a padded index (ip, jp, lp) of slab `slab` stands for (x, y, z all periodic).
    pub fn global_cell(&self, slab: &Slab, ip: usize, jp: usize, lp: usize) -> [usize; 3] {
        let wrap = |p: usize, start: usize, n: usize| (p + start + n - self.h % n) % n;
        [wrap(ip, 0, self.n[0]), wrap(jp, 0, self.n[1]), wrap(lp, slab.planes.start, self.n[2])]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabs_cover_the_planes_in_order_and_are_balanced() {
        for (nz, parts) in [(512, 1), (512, 2), (512, 4), (100, 3), (27, 4), (24, 4)] {
            let d = Decomposition::new([8, 8, nz], 3, parts).unwrap();
            let slabs = d.slabs();
            assert_eq!(slabs[0].planes.start, 0);
            assert_eq!(slabs[parts - 1].planes.end, nz);
            for pair in slabs.windows(2) {
                assert_eq!(pair[0].planes.end, pair[1].planes.start);
            }
            let sizes: Vec<usize> = slabs.iter().map(|s| s.planes.len()).collect();
            assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
        }
    }

    #[test]
    fn neighbours_wrap_around() {
        let d = Decomposition::new([8, 8, 64], 3, 4).unwrap();
        let s: Vec<(usize, usize)> = d.slabs().iter().map(|s| (s.lower, s.upper)).collect();
        assert_eq!(s, vec![(3, 1), (0, 2), (1, 3), (2, 0)]);
        let one = Decomposition::new([8, 8, 64], 3, 1).unwrap().slab(0);
        assert_eq!((one.lower, one.upper), (0, 0));
    }

    #[test]
    fn thin_slabs_are_refused() {
        assert!(Decomposition::new([8, 8, 20], 3, 4).is_err());
        assert!(Decomposition::new([8, 8, 24], 3, 4).is_ok());
        assert!(Decomposition::new([8, 8, 24], 3, 0).is_err());
        assert!(Decomposition::new([2, 8, 24], 3, 1).is_err());
    }

    /// Sending a slab's planes into its neighbours' halos gives every halo plane the global plane it wraps to.
    #[test]
    fn halo_exchange_fills_each_halo_with_the_planes_it_wraps_to() {
        for parts in [1, 2, 3, 4] {
            let d = Decomposition::new([4, 3, 6 * parts + 1], 2, parts).unwrap();
            let plane = d.plane_len();
            // Every element holds the global z of its plane (interior) or a marker (halo).
            let mut slabs: Vec<Vec<i64>> = d
                .slabs()
                .iter()
                .map(|s| {
                    let nl = s.planes.len();
                    (0..d.padded_len(nl))
                        .map(|e| {
                            let lp = e / plane;
                            if lp < d.h || lp >= nl + d.h {
                                -1
                            } else {
                                (s.planes.start + lp - d.h) as i64
                            }
                        })
                        .collect()
                })
                .collect();
            let before = slabs.clone();
            for s in d.slabs() {
                let nl = s.planes.len();
                let up = before[s.rank][d.send_up(nl)].to_vec();
                let down = before[s.rank][d.send_down()].to_vec();
                let upper_nl = d.slab(s.upper).planes.len();
                slabs[s.upper][d.lower_halo()].copy_from_slice(&up);
                slabs[s.lower][d.upper_halo(d.slab(s.lower).planes.len())].copy_from_slice(&down);
                assert_eq!(d.lower_halo().len(), up.len());
                assert!(upper_nl >= d.h);
            }
            for s in d.slabs() {
                let nl = s.planes.len();
                for lp in 0..nl + 2 * d.h {
                    let want = d.global_cell(&s, d.h, d.h, lp)[2] as i64;
                    let got = &slabs[s.rank][lp * plane..(lp + 1) * plane];
                    assert!(
                        got.iter().all(|&v| v == want),
                        "parts {parts} rank {} plane {lp}: {got:?} != {want}",
                        s.rank
                    );
                }
            }
        }
    }

    #[test]
    fn inner_and_edge_planes_split_the_interior() {
        let d = Decomposition::new([8, 8, 40], 3, 2).unwrap();
        let nl = 20;
        let [low, high] = d.edge_planes(nl);
        assert_eq!((low, d.inner_planes(nl), high), (0..3, 3..17, 17..20));
    }

    #[test]
    fn padded_indices_wrap_to_global_cells() {
        let d = Decomposition::new([5, 4, 12], 2, 2).unwrap();
        let s = d.slab(1);
        assert_eq!(s.planes, 6..12);
        assert_eq!(d.global_cell(&s, 0, 0, 0), [3, 2, 4]);
        assert_eq!(d.global_cell(&s, 2, 2, 2), [0, 0, 6]);
        assert_eq!(d.global_cell(&s, 8, 7, 9), [1, 1, 1]);
    }
}
