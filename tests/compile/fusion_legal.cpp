// Legal fused compositions are types the compiler accepts and reasons about.
#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/op.hpp"

using namespace litegraph;
using namespace litegraph::fusion;

using conv_relu = fused<ops::conv2d, bias, act<ops::act::relu>>;
using se_gate = fused<ops::conv2d, bias, gate<ops::act::hard_sigmoid, mul_plane>>;
using patent_gate = fused<ops::conv2d, bias, gate<ops::act::sigmoid, mul_with>>;
using residual = fused<ops::conv2d, bias, add_with>;

static_assert(op_definition<conv_relu> && op_definition<se_gate> && op_definition<residual>);
static_assert(conv_relu::activation() == "relu" && conv_relu::terminal() == "store");
static_assert(se_gate::activation() == "hard_sigmoid" && se_gate::terminal() == "mul_plane");
static_assert(patent_gate::terminal() == "mul_with" && residual::terminal() == "add_with");
static_assert(conv_relu::chain_type::has_bias && !conv_relu::chain_type::has_terminal);
static_assert(se_gate::chain_type::has_terminal);

// The int8 requantize epilogue is a chain of the same kind.
using int8_relu = fused_int8<act<ops::act::relu>, quantize_store>;
static_assert(op_definition<int8_relu> && int8_relu::int8_out);
static_assert(int8_relu::activation() == "relu" && int8_relu::terminal() == "quantize_store");
static_assert(chain<rescale, bias, act<ops::act::relu>, quantize_store>::has_terminal);
static_assert(!fused_int8<gate<ops::act::hard_sigmoid, mul_plane>>::int8_out);

int main() {
    return 0;
}
