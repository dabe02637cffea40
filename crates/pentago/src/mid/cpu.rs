//! Whether this machine runs the code compiled for AVX2, BMI1/2, POPCNT
//! and LZCNT (the fast twins of the kernels), detected once at run time.

#[cfg(target_arch = "x86_64")]
use std::sync::OnceLock;

/// Whether this machine runs the code compiled for AVX2, BMI1/2, POPCNT
/// and LZCNT (checked once).
pub fn fast_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static FAST: OnceLock<bool> = OnceLock::new();
        *FAST.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("lzcnt")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}
