// OpenBLAS: CBLAS plus the few LAPACK Fortran routines we call (OpenBLAS
// exports them itself, so no LAPACKE is needed).
#include <cblas.h>

/// OpenBLAS (pthreads build): stops the worker threads the library started
/// when it was loaded. Exported, not in cblas.h; the library restarts them
/// itself if a later call wants more than one thread.
int blas_thread_shutdown_(void);

/// Solve A X = B (general matrix, LU with partial pivoting). Column-major.
void sgesv_(const int *n, const int *nrhs, float *a, const int *lda, int *ipiv,
            float *b, const int *ldb, int *info);
/// Double-precision variant of sgesv_.
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
            double *b, const int *ldb, int *info);
/// Singular value decomposition (double precision). Column-major.
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n,
             double *a, const int *lda, double *s, double *u, const int *ldu,
             double *vt, const int *ldvt, double *work, const int *lwork, int *info);
/// Minimum-norm least squares via SVD (single precision). Column-major.
void sgelsd_(const int *m, const int *n, const int *nrhs, float *a, const int *lda,
             float *b, const int *ldb, float *s, const float *rcond, int *rank,
             float *work, const int *lwork, int *iwork, int *info);
