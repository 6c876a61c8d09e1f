/* Sort the vector x in ascending order ignoring elements with value 0.
   Leave zero valued elements in-place.
   Example:

	 input: [8, 4, 0, 9, 8, 0, 1, -1, 7]
   output: [-1, 1, 0, 4, 7, 0, 8, 8, 9]
*/
void sortIgnoreZero(std::vector<int> &x) {
  std::vector<int> values;
  for (int v : x) {
    if (v != 0) {
      values.push_back(v);
    }
  }
  std::sort(values.begin(), values.end());
  size_t next = 0;
  for (auto &v : x) {
    if (v != 0) {
      v = values[next++];
    }
  }
}
