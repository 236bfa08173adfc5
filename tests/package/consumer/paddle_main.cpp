// A consumer of litegraph::paddle (the loader side): includes the loader
// umbrella when it is installed, otherwise only checks that linking protobuf
// through litegraph::paddle / litegraph-paddle.pc works.
#if defined(LITEGRAPH_SINGLE_HEADER)
#include <litegraph_paddle.hpp>
#elif __has_include(<litegraph/paddle.hpp>)
#include <litegraph/paddle.hpp>
#else
#include <litegraph.hpp>
#endif

#include <google/protobuf/stubs/common.h>

#include <cstdio>

int main() {
    // Both halves must be usable in one program: a litegraph type and a protobuf symbol.
    litegraph::tensor t(litegraph::dtype::f32, {2});
    t.span<float>()[1] = 3.f;
    if (t.span<float>()[1] != 3.f) return 1;
    std::printf("litegraph paddle consumer: ok (protobuf %s)\n",
                google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION).c_str());
    return 0;
}
