//! splitmix64 (Steele, Lea and Flood): a tiny, well-mixed, seedable
//! generator. The interpreter's and the tools' random data (`kernelc run`'s
//! `rand:N:SEED` buffers, the tests' inputs) all come from it, so a seed
//! gives the same numbers on every machine and anyone can regenerate them.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}
