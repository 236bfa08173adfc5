// Must not compile: the int8 rescale comes first, never after the bias.
#include "litegraph/fusion/stage_names.hpp"

using namespace litegraph;
using bad = fusion::chain<fusion::bias, fusion::rescale, fusion::quantize_store>;
bad instance{};
