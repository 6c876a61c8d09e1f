#include <omp.h>

/* Return the index of the value in the vector x that is closest to the math constant PI.
   Use M_PI for the value of PI.
   Use OpenMP to search in parallel.
   Example:

   input: [9.18, 3.05, 7.24, 11.3, -166.49, 2.1]
   output: 1
*/
size_t findClosestToPi(std::vector<double> const& x) {
  size_t best = 0;
  double bestDistance = std::numeric_limits<double>::max();
  #pragma omp parallel
  {
    size_t mine = 0;
    double mineDistance = std::numeric_limits<double>::max();
    #pragma omp for nowait
    for (size_t i = 0; i < x.size(); ++i) {
      double distance = std::abs(x[i] - M_PI);
      if (distance < mineDistance) {
        mineDistance = distance;
        mine = i;
      }
    }
    #pragma omp critical
    {
      if (mineDistance < bestDistance || (mineDistance == bestDistance && mine < best)) {
        bestDistance = mineDistance;
        best = mine;
      }
    }
  }
  return best;
}
