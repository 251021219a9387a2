#include "checks/reference/convolution.hpp"

namespace cudacheck::reference {

std::size_t ConvShape::input_count() const { return static_cast<std::size_t>(n) * c * h * w; }
std::size_t ConvShape::filter_count() const { return static_cast<std::size_t>(k) * c * r * s; }
std::size_t ConvShape::output_count() const { return static_cast<std::size_t>(n) * k * out_h() * out_w(); }
double ConvShape::multiply_adds() const { return static_cast<double>(output_count()) * c * r * s; }

std::vector<double> reference_convolution(const ConvShape& shape, std::span<const float> input,
                                          std::span<const float> filter) {
    const int p_size = shape.out_h();
    const int q_size = shape.out_w();
    std::vector<double> output(shape.output_count(), 0.0);
    if (input.size() < shape.input_count() || filter.size() < shape.filter_count()) return output;
    std::size_t out = 0;
    for (int n = 0; n < shape.n; ++n)
        for (int k = 0; k < shape.k; ++k)
            for (int p = 0; p < p_size; ++p)
                for (int q = 0; q < q_size; ++q) {
                    double sum = 0.0;
                    for (int c = 0; c < shape.c; ++c)
                        for (int r = 0; r < shape.r; ++r) {
                            const int y = p * shape.stride - shape.pad + r;
                            if (y < 0 || y >= shape.h) continue;
                            for (int s = 0; s < shape.s; ++s) {
                                const int x = q * shape.stride - shape.pad + s;
                                if (x < 0 || x >= shape.w) continue;
                                const std::size_t in_index =
                                    ((static_cast<std::size_t>(n) * shape.c + c) * shape.h + y) * shape.w + x;
                                const std::size_t f_index =
                                    ((static_cast<std::size_t>(k) * shape.c + c) * shape.r + r) * shape.s + s;
                                sum += static_cast<double>(input[in_index]) * static_cast<double>(filter[f_index]);
                            }
                        }
                    output[out++] = sum;
                }
    return output;
}

}  // namespace cudacheck::reference
