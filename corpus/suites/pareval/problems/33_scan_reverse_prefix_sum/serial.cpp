/* Compute the reverse prefix sum of the vector x into output.
   Examples:
   
   input: [1, 7, 4, 6, 6, 2]
   output: [2, 8, 14, 18, 25, 26]

   input: [3, 3, 7, 1, -2]
   output: [-2, -1, 6, 9, 12]
*/
void reversePrefixSum(std::vector<int> const& x, std::vector<int> &output) {
  // As the examples show: output[i] is the sum of the last i+1 values of x.
  size_t n = x.size();
  int sum = 0;
  for (size_t i = 0; i < n; ++i) {
    sum += x[n - 1 - i];
    output[i] = sum;
  }
}
