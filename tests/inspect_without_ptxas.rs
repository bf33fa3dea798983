//! `cuprum::inspect` without `ptxas`: a clear error, not a panic. Alone in its binary because
//! it sets `CUPRUM_PTXAS`, which every other `inspect` call in the process would see.

#[path = "kernels/runtime.rs"]
mod kernels;

#[test]
fn resources_without_ptxas_is_a_clear_error() {
    std::env::set_var("CUPRUM_PTXAS", "/nonexistent/ptxas");
    assert_eq!(cuprum::inspect::find_ptxas(), None);
    match cuprum::inspect::resources(kernels::axpy::PTX, "sm_90") {
        Err(cuprum::Error::Tool(msg)) => {
            assert!(msg.contains("ptxas was not found"), "{msg}");
            assert!(msg.contains("pip install nvidia-cuda-nvcc-cu12"), "{msg}");
        }
        other => panic!("expected a missing-tool error, got {other:?}"),
    }
}
