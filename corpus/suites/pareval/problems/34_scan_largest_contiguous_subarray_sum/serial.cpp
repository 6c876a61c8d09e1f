/* Return the largest sum of any contiguous subarray in the vector x.
   i.e. if x=[−2, 1, −3, 4, −1, 2, 1, −5, 4] then [4, −1, 2, 1] is the contiguous
   subarray with the largest sum of 6.
   Example:

   input: [−2, 1, −3, 4, −1, 2, 1, −5, 4]
   output: 6
*/
int maximumSubarray(std::vector<int> const& x) {
  // Every subarray x[i..j]: quadratic, like ParEval's reference, which sets its timing size.
  int largest = std::numeric_limits<int>::lowest();
  for (size_t i = 0; i < x.size(); ++i) {
    int sum = 0;
    for (size_t j = i; j < x.size(); ++j) {
      sum += x[j];
      largest = std::max(largest, sum);
    }
  }
  return largest;
}
