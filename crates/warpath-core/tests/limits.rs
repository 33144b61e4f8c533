//! The size guard under a memory cap (its own test binary: the cap is process-wide): a film
//! or a claim larger than the memory the process can get is an error naming the size and
//! the bound, not an abort; lifting the cap lets the same claim through.

use warpath_core::film::Film;
use warpath_core::limits::{self, LimitError};

#[test]
fn a_film_larger_than_the_memory_cap_is_an_error() {
    limits::set_memory_cap(Some(256 << 20));
    // The f64 film: sum and sum of squares as 3 × f64 each, a u32 count.
    assert_eq!(Film::bytes_per_pixel(), 24 + 24 + 4);
    let e = Film::try_new(16384, 16384).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("the film claims 16384×16384 pixels, which need 13.0 GiB"), "{message}");
    assert!(
        message.contains("13.0 GiB") && message.contains("256.0 MiB") && message.contains("memory cap"),
        "{message}"
    );
    assert!(matches!(e, LimitError::OutOfMemory { .. }));
    // A film that fits is allocated, zeroed.
    let film = Film::try_new(64, 32).unwrap();
    assert_eq!(film.pixel_count(), 64 * 32);
    assert_eq!(film.total_samples(), 0);
    // Claims of any size obey the cap; lifting it lets a 64 MiB claim through.
    assert!(limits::check_bytes("buffer", 1 << 30).is_err());
    limits::set_memory_cap(None);
    assert!(limits::check_bytes("buffer", 64 << 20).is_ok());
    assert!(limits::zeroed_vec::<u8>("buffer", 1 << 20).unwrap().iter().all(|&b| b == 0));
}
