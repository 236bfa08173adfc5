// Must not compile: the int8 rescale comes first, never after the bias.
#include "litegraph/fusion/epilogue.hpp"

using namespace litegraph;
using bad = fusion::chain<fusion::bias, fusion::rescale, fusion::quantize_store>;
bad instance{};
