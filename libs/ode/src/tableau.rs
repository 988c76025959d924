//! Butcher tableaus of every method, with exact coefficients: rationals as `"p/q"` (numerator and denominator are
//! each parsed with correct rounding, then divided), irrational ones from their closed forms (the L-stable
//! diagonal is the root of a cubic, solved here), and the published high-precision decimals where no closed form
//! exists (Tsit5, Kvaerno5). The tests check every tableau against the order conditions (`order.rs`).

use crate::method::Method;

/// A Runge-Kutta method: `a` is the full `s x s` matrix (strictly lower triangular for explicit methods, with the
/// diagonal for DIRK methods), `b` the weights of the propagated solution, `b_hat` those of the embedded one.
#[derive(Clone, Debug, PartialEq)]
pub struct Tableau {
    pub method: Method,
    pub a: Vec<Vec<f64>>,
    pub b: Vec<f64>,
    pub b_hat: Option<Vec<f64>>,
    pub c: Vec<f64>,
    pub order: u32,
    pub embedded_order: Option<u32>,
}

impl Tableau {
    pub fn stages(&self) -> usize {
        self.b.len()
    }

    /// No stage depends on itself.
    pub fn is_explicit(&self) -> bool {
        (0..self.stages()).all(|i| (i..self.stages()).all(|j| self.a[i][j] == 0.0))
    }

    /// The last row of `a` is `b`: the last stage value is the new solution.
    pub fn stiffly_accurate(&self) -> bool {
        self.a[self.stages() - 1] == self.b
    }

    /// First same as last: the first stage is explicit at `c = 0` and the last stage is the new solution at
    /// `c = 1`, so the last stage derivative of an accepted step is the first of the next one.
    pub fn fsal(&self) -> bool {
        let s = self.stages();
        s > 1 && self.a[0][0] == 0.0 && self.c[0] == 0.0 && self.c[s - 1] == 1.0 && self.stiffly_accurate()
    }

    /// The error weights `d = b - b_hat`: the local error estimate is `h * sum_j d_j k_j`.
    pub fn error_weights(&self) -> Option<Vec<f64>> {
        let b_hat = self.b_hat.as_ref()?;
        Some(self.b.iter().zip(b_hat).map(|(b, e)| b - e).collect())
    }

    pub fn is_adaptive(&self) -> bool {
        self.b_hat.is_some()
    }

    /// The order the step controllers use: `min(order, embedded order)`.
    pub fn controller_order(&self) -> u32 {
        self.embedded_order.map_or(self.order, |e| e.min(self.order))
    }

    /// The diagonal coefficient shared by the implicit stages (DIRK methods), `None` for explicit ones.
    pub fn implicit_diagonal(&self) -> Option<f64> {
        (0..self.stages()).map(|i| self.a[i][i]).find(|g| *g != 0.0)
    }

    pub fn of(method: Method) -> Tableau {
        match method {
            Method::Euler => explicit(method, &[], &["1"], None, &["0"], 1, None),
            Method::Heun => explicit(method, &[&["1"]], &["1/2", "1/2"], Some(&["1", "0"]), &["0", "1"], 2, Some(1)),
            Method::Ralston => explicit(
                method,
                &[&["1/2"], &["0", "3/4"]],
                &["2/9", "1/3", "4/9"],
                None,
                &["0", "1/2", "3/4"],
                3,
                None,
            ),
            Method::BogackiShampine3 => explicit(
                method,
                &[&["1/2"], &["0", "3/4"], &["2/9", "1/3", "4/9"]],
                &["2/9", "1/3", "4/9", "0"],
                Some(&["7/24", "1/4", "1/3", "1/8"]),
                &["0", "1/2", "3/4", "1"],
                3,
                Some(2),
            ),
            Method::DormandPrince5 => dormand_prince(),
            Method::ClassicalRk4 => explicit(
                method,
                &[&["1/2"], &["0", "1/2"], &["0", "0", "1"]],
                &["1/6", "1/3", "1/3", "1/6"],
                None,
                &["0", "1/2", "1/2", "1"],
                4,
                None,
            ),
            Method::CashKarp5 => cash_karp(),
            Method::Fehlberg5 => fehlberg(),
            Method::Tsit5 => tsit5(),
            Method::Vern7 => vern7(),
            Method::ImplicitMidpoint => implicit(method, vec![vec![0.5]], vec![1.0], None, 2, None),
            Method::Trapezoidal => {
                implicit(method, vec![vec![0.0, 0.0], vec![0.5, 0.5]], vec![0.5, 0.5], None, 2, None)
            }
            Method::Sdirk2 => sdirk2(),
            Method::LStableDirk3 => l_stable_dirk3(),
            Method::Kvaerno3 => kvaerno3(),
            Method::Kvaerno5 => kvaerno5(),
        }
    }
}

/// Parses an exact coefficient: `"p/q"` (each part correctly rounded, then divided: within 1.5 ulp of p/q), or a
/// decimal. Panics on malformed input (the tableaus are constants of this file).
pub fn q(text: &str) -> f64 {
    let parse = |s: &str| s.trim().parse::<f64>().unwrap_or_else(|_| panic!("bad coefficient {text:?}"));
    match text.split_once('/') {
        Some((num, den)) => parse(num) / parse(den),
        None => parse(text),
    }
}

fn row(values: &[&str]) -> Vec<f64> {
    values.iter().map(|v| q(v)).collect()
}

/// An explicit tableau from the rows below the diagonal (`lower[i - 1]` holds stage i's `a_ij`, j < i).
fn explicit(
    method: Method,
    lower: &[&[&str]],
    b: &[&str],
    b_hat: Option<&[&str]>,
    c: &[&str],
    order: u32,
    embedded_order: Option<u32>,
) -> Tableau {
    let s = b.len();
    let mut a = vec![vec![0.0; s]; s];
    for (i, values) in lower.iter().enumerate() {
        for (j, v) in values.iter().enumerate() {
            a[i + 1][j] = q(v);
        }
    }
    Tableau { method, a, b: row(b), b_hat: b_hat.map(row), c: row(c), order, embedded_order }
}

/// A DIRK tableau; `c` is the row sums of `a`.
fn implicit(
    method: Method,
    a: Vec<Vec<f64>>,
    b: Vec<f64>,
    b_hat: Option<Vec<f64>>,
    order: u32,
    embedded_order: Option<u32>,
) -> Tableau {
    let c = a.iter().map(|r| r.iter().sum::<f64>()).collect();
    Tableau { method, a, b, b_hat, c, order, embedded_order }
}

fn dormand_prince() -> Tableau {
    let b = ["35/384", "0", "500/1113", "125/192", "-2187/6784", "11/84", "0"];
    explicit(
        Method::DormandPrince5,
        &[
            &["1/5"],
            &["3/40", "9/40"],
            &["44/45", "-56/15", "32/9"],
            &["19372/6561", "-25360/2187", "64448/6561", "-212/729"],
            &["9017/3168", "-355/33", "46732/5247", "49/176", "-5103/18656"],
            &b[..6],
        ],
        &b,
        Some(&["5179/57600", "0", "7571/16695", "393/640", "-92097/339200", "187/2100", "1/40"]),
        &["0", "1/5", "3/10", "4/5", "8/9", "1", "1"],
        5,
        Some(4),
    )
}

fn cash_karp() -> Tableau {
    explicit(
        Method::CashKarp5,
        &[
            &["1/5"],
            &["3/40", "9/40"],
            &["3/10", "-9/10", "6/5"],
            &["-11/54", "5/2", "-70/27", "35/27"],
            &["1631/55296", "175/512", "575/13824", "44275/110592", "253/4096"],
        ],
        &["37/378", "0", "250/621", "125/594", "0", "512/1771"],
        Some(&["2825/27648", "0", "18575/48384", "13525/55296", "277/14336", "1/4"]),
        &["0", "1/5", "3/10", "3/5", "1", "7/8"],
        5,
        Some(4),
    )
}

/// Runge-Kutta-Fehlberg 4(5), propagating the fifth-order solution (local extrapolation).
fn fehlberg() -> Tableau {
    explicit(
        Method::Fehlberg5,
        &[
            &["1/4"],
            &["3/32", "9/32"],
            &["1932/2197", "-7200/2197", "7296/2197"],
            &["439/216", "-8", "3680/513", "-845/4104"],
            &["-8/27", "2", "-3544/2565", "1859/4104", "-11/40"],
        ],
        &["16/135", "0", "6656/12825", "28561/56430", "-9/50", "2/55"],
        Some(&["25/216", "0", "1408/2565", "2197/4104", "-1/5", "0"]),
        &["0", "1/4", "3/8", "12/13", "1", "1/2"],
        5,
        Some(4),
    )
}

/// Tsitouras (2011), the high-precision coefficients (as in diffrax and OrdinaryDiffEq), rounded to f64.
fn tsit5() -> Tableau {
    let b = [
        "0.09646076681806522951816731316512876333711995238157997181903319145764851595234062815396",
        "1/100",
        "0.4798896504144995747752495322905965199130404621990332488332634944254542060153074523509",
        "1.379008574103741893192274821856872770756462643091360525934940067397245698027561293331",
        "-3.290069515436080679901047585711363850115683290894936158531296799594813811049925401677",
        "2.324710524099773982415355918398765796109060233222962411944060046314465391054716027841",
        "0",
    ];
    explicit(
        Method::Tsit5,
        &[
            &["161/1000"],
            &[
                "-0.008480655492356988544426874250230774675121177393430391537369234245294192976164141156943",
                "0.3354806554923569885444268742502307746751211773934303915373692342452941929761641411569",
            ],
            &[
                "2.897153057105493432130432594192938764924887287701866490314866693455023795137503079289",
                "-6.359448489975074843148159912383825625952700647415626703305928850207288721235210244366",
                "4.362295432869581411017727318190886861027813359713760212991062156752264926097707165077",
            ],
            &[
                "5.325864828439256604428877920840511317836476253097040101202360397727981648835607691791",
                "-11.74888356406282787774717033978577296188744178259862899288666928009020615663593781589",
                "7.495539342889836208304604784564358155658679161518186721010132816213648793440552049753",
                "-0.09249506636175524925650207933207191611349983406029535244034750452930469056411389539635",
            ],
            &[
                "5.861455442946420028659251486982647890394337666164814434818157239052507339770711679748",
                "-12.92096931784710929170611868178335939541780751955743459166312250439928519268343184452",
                "8.159367898576158643180400794539253485181918321135053305748355423955009222648673734986",
                "-0.07158497328140099722453054252582973869127213147363544882721139659546372402303777878835",
                "-0.02826905039406838290900305721271224146717633626879770007617876201276764571291579142206",
            ],
            &b[..6],
        ],
        &b,
        Some(&[
            "0.09468075576583945807478876255758922856117527357724631226139574065785592789071067303271",
            "0.009183565540343253096776363936645313759813746240984095238905939532922955247253608687270",
            "0.4877705284247615707855642599631228241516691959761363774365216240304071651579571959813",
            "1.234297566930478985655109673884237654035539930748192848315425833500484878378061439761",
            "-2.707712349983525454881109975059321670689605166938197378763992255714444407154902012702",
            "1.866628418170587035753719399566211498666255505244122593996591602841258328965767580089",
            "1/66",
        ]),
        &[
            "0",
            "161/1000",
            "327/1000",
            "9/10",
            "0.9800255409045096857298102862870245954942137979563024768854764293221195950761080302604",
            "1",
            "1",
        ],
        5,
        Some(4),
    )
}

/// Verner's "most efficient" 7(6) pair (RKV76.IIa), rational coefficients from Verner's tables.
fn vern7() -> Tableau {
    explicit(
        Method::Vern7,
        &[
            &["1/200"],
            &["-4361/4050", "2401/2025"],
            &["49/1200", "0", "49/400"],
            &["2454451729/3841600000", "0", "-9433712007/3841600000", "4364554539/1920800000"],
            &[
                "-6187101755456742839167388910402379177523537620/2324599620333464857202963610201679332423082271",
                "0",
                "27569888999279458303270493567994248533230000/2551701010245296220859455115479340650299761",
                "-37368161901278864592027018689858091583238040000/4473131870960004275166624817435284159975481033",
                "1392547243220807196190880383038194667840000000/1697219131380493083996999253929006193143549863",
            ],
            &[
                "11272026205260557297236918526339/1857697188743815510261537500000",
                "0",
                "-48265918242888069/1953194276993750",
                "26726983360888651136155661781228/1308381343805114800955157615625",
                "-2090453318815827627666994432/1096684189897834170412307919",
                "1148577938985388929671582486744843844943428041509/1141532118233823914568777901158338927629837500000",
            ],
            &[
                "1304457204588839386329181466225966641/108211771565488329642169667802016000",
                "0",
                "-1990261989751005/40001418792832",
                "2392691599894847687194643439066780106875/58155654089143548047476915856270826016",
                "-1870932273351008733802814881998561250/419326053051486744762255151208232123",
                "1043329047173803328972823866240311074041739158858792987034783181/510851127745017966999893975119259285040213723744255237522144000",
                "-311918858557595100410788125/3171569057622789618800376448",
            ],
            &[
                "17579784273699839132265404100877911157/1734023495717116205617154737841023480",
                "0",
                "-18539365951217471064750/434776548575709731377",
                "447448655912568142291911830292656995992000/12511202807447096607487664209063950964109",
                "-65907597316483030274308429593905808000000/15158061430635748897861852383197382130691",
                "273847823027445129865693702689010278588244606493753883568739168819449761/136252034448398939768371761610231099586032870552034688235302796640584360",
                "694664732797172504668206847646718750/1991875650119463976442052358853258111",
                "-19705319055289176355560129234220800/72595753317320295604316217197876507",
            ],
            &[
                "-511858190895337044664743508805671/11367030248263048398341724647960",
                "0",
                "2822037469238841750/15064746656776439",
                "-23523744880286194122061074624512868000/152723005449262599342117017051789699",
                "10685036369693854448650967542704000000/575558095977344459903303055137999707",
                "-6259648732772142303029374363607629515525848829303541906422993/876479353814142962817551241844706205620792843316435566420120",
                "17380896627486168667542032602031250/13279937889697320236613879977356033",
                "0",
                "0",
            ],
        ],
        &[
            "96762636172307789/2051985304794103980",
            "0",
            "0",
            "312188947591288252500000/1212357694274963646019729",
            "13550580884964304000000000000/51686919683339547115937980629",
            "72367769693133178898676076432831566019684378142853445230956642801/475600216991873963561768100160364792981629064220601844848928537580",
            "1619421054120605468750/3278200730370057108183",
            "-66898316144057728000/227310933007074849597",
            "181081444637946577/2226845467039736466",
            "0",
        ],
        Some(&[
            "117807213929927/2640907728177740",
            "0",
            "0",
            "4758744518816629500000/17812069906509312711137",
            "1730775233574080000000000/7863520414322158392809673",
            "2682653613028767167314032381891560552585218935572349997/12258338284789875762081637252125169126464880985167722660",
            "40977117022675781250/178949401077111131341",
            "0",
            "0",
            "2152106665253777/106040260335225546",
        ]),
        &["0", "1/200", "49/450", "49/300", "911/2000", "3480084980/5709648941", "221/250", "37/40", "1", "1"],
        7,
        Some(6),
    )
}

/// The root near 0.4359 of `6 g^3 - 18 g^2 + 9 g - 1`: the diagonal that makes three-stage order-3 SDIRK methods
/// (and Kvaerno's 3(2) ESDIRK) L-stable.
pub fn l_stable_gamma() -> f64 {
    let mut g: f64 = 0.4358665215;
    for _ in 0..8 {
        let f = ((6.0 * g - 18.0) * g + 9.0) * g - 1.0;
        let df = (18.0 * g - 36.0) * g + 9.0;
        g -= f / df;
    }
    g
}

/// Alexander's two-stage L-stable SDIRK of order 2, `gamma = 1 - 1/sqrt 2`.
fn sdirk2() -> Tableau {
    let g = 1.0 - std::f64::consts::FRAC_1_SQRT_2;
    implicit(Method::Sdirk2, vec![vec![g, 0.0], vec![1.0 - g, g]], vec![1.0 - g, g], None, 2, None)
}

/// Alexander's three-stage L-stable, stiffly accurate SDIRK of order 3.
fn l_stable_dirk3() -> Tableau {
    let g = l_stable_gamma();
    let b1 = (-6.0 * g * g + 16.0 * g - 1.0) / 4.0;
    let b2 = (6.0 * g * g - 20.0 * g + 5.0) / 4.0;
    let a = vec![vec![g, 0.0, 0.0], vec![(1.0 - g) / 2.0, g, 0.0], vec![b1, b2, g]];
    implicit(Method::LStableDirk3, a, vec![b1, b2, g], None, 3, None)
}

/// Kvaerno's 3(2) ESDIRK (4 stages, stiffly accurate, FSAL); the embedded solution is the third stage.
fn kvaerno3() -> Tableau {
    let g = l_stable_gamma();
    let a31 = (-4.0 * g * g + 6.0 * g - 1.0) / (4.0 * g);
    let a32 = (-2.0 * g + 1.0) / (4.0 * g);
    let a41 = (6.0 * g - 1.0) / (12.0 * g);
    let a42 = -1.0 / ((24.0 * g - 12.0) * g);
    let a43 = (-6.0 * g * g + 6.0 * g - 1.0) / (6.0 * g - 3.0);
    let a = vec![vec![0.0, 0.0, 0.0, 0.0], vec![g, g, 0.0, 0.0], vec![a31, a32, g, 0.0], vec![a41, a42, a43, g]];
    let b = a[3].clone();
    implicit(Method::Kvaerno3, a, b, Some(vec![a31, a32, g, 0.0]), 3, Some(2))
}

/// Kvaerno's 5(4) ESDIRK (7 stages, stiffly accurate, FSAL), coefficients as published (17 digits).
#[allow(clippy::excessive_precision)]
fn kvaerno5() -> Tableau {
    let g = 0.26;
    let a = vec![
        vec![0.0; 7],
        vec![g, g, 0.0, 0.0, 0.0, 0.0, 0.0],
        vec![0.13, 0.84033320996790809, g, 0.0, 0.0, 0.0, 0.0],
        vec![0.22371961478320505, 0.47675532319799699, -0.06470895363112615, g, 0.0, 0.0, 0.0],
        vec![0.16648564323248321, 0.10450018841591720, 0.03631482272098715, -0.13090704451073998, g, 0.0, 0.0],
        vec![0.13855640231268224, 0.0, -0.04245337201752043, 0.02446657898003141, 0.61943039072480676, g, 0.0],
        vec![
            0.13659751177640291,
            0.0,
            -0.05496908796538376,
            -0.04118626728321046,
            0.62993304899016403,
            0.06962479448202728,
            g,
        ],
    ];
    let b = a[6].clone();
    let b_hat = a[5].clone();
    implicit(Method::Kvaerno5, a, b, Some(b_hat), 5, Some(4))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_structure() {
        for m in Method::all() {
            let t = Tableau::of(m);
            let s = t.stages();
            assert_eq!(t.a.len(), s, "{m}");
            assert!(t.a.iter().all(|r| r.len() == s), "{m}");
            assert_eq!(t.c.len(), s, "{m}");
            assert_eq!(t.is_explicit(), !m.is_implicit(), "{m}");
            for i in 0..s {
                for j in i + 1..s {
                    assert_eq!(t.a[i][j], 0.0, "{m}: a[{i}][{j}] above the diagonal");
                }
                let row_sum: f64 = t.a[i].iter().sum();
                assert!((row_sum - t.c[i]).abs() < 1e-14, "{m}: c[{i}] = {} but the row sums to {row_sum}", t.c[i]);
            }
            if let Some(g) = t.implicit_diagonal() {
                assert!((0..s).all(|i| t.a[i][i] == 0.0 || t.a[i][i] == g), "{m}: one diagonal value");
            }
            assert_eq!(t.b_hat.is_some(), t.embedded_order.is_some(), "{m}");
        }
    }

    #[test]
    fn fsal_methods() {
        let fsal: Vec<_> = Method::all().filter(|m| Tableau::of(*m).fsal()).collect();
        assert_eq!(
            fsal,
            [
                Method::BogackiShampine3,
                Method::DormandPrince5,
                Method::Tsit5,
                Method::Trapezoidal,
                Method::Kvaerno3,
                Method::Kvaerno5
            ]
        );
    }

    #[test]
    fn l_stable_gamma_is_the_known_value() {
        assert!((l_stable_gamma() - 0.435866521508459).abs() < 1e-15);
    }
}
