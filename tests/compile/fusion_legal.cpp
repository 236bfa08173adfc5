// Legal fused compositions are types the compiler accepts and reasons about.
#include "litegraph/fusion/fused.hpp"
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

int main() {
    return 0;
}
