/* Compute one iteration of a 3-point 1D jacobi stencil on `input`. Store the results in `output`.
   Each element of `input` will be averaged with its two neighbors and stored in the corresponding element of `output`.
   i.e. output[i] = (input[i-1]+input[i]+input[i+1])/3
   Replace with 0 when reading past the boundaries of `input`.
   Example:

   input: [9, -6, -1, 2, 3]
   output: [1, 2/3, -5/3, 4/3, 5/3]
*/
void jacobi1D(std::vector<double> const& input, std::vector<double> &output) {
  size_t n = input.size();
  for (size_t i = 0; i < n; ++i) {
    double left = i > 0 ? input[i - 1] : 0.0;
    double right = i + 1 < n ? input[i + 1] : 0.0;
    output[i] = (left + input[i] + right) / 3;
  }
}
