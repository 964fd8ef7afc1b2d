//! SSA construction through the builder: loops get block parameters, straight
//! code does not, and the result prints as expected.

mod common;

use midend::text::{write_function, PrintOptions};

#[test]
fn loop_variables_become_block_params() {
    let func = common::build_sum_loop();
    let text = write_function(&func, None, PrintOptions::default());
    assert_eq!(text, common::SUM_LOOP_TEXT);
}
