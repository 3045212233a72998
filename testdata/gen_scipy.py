# Writes the small SciPy-made MAT-files used by the tests of package data
# (an independent writer to check the reader against). Run with python3 and
# scipy from this directory: python3 gen_scipy.py
import numpy as np, scipy.io as sio, scipy.sparse as sp

d = {}
d['i8'] = np.array([[-128, 127], [0, 1], [2, -3]], dtype=np.int8)
d['u8'] = np.array([[0, 255], [1, 2], [3, 4]], dtype=np.uint8)
d['i16'] = np.array([[-32768, 32767], [0, 1], [2, -3]], dtype=np.int16)
d['u16'] = np.array([[0, 65535], [1, 2], [3, 4]], dtype=np.uint16)
d['i32'] = np.array([[-2**31, 2**31-1], [0, 1], [2, -3]], dtype=np.int32)
d['u32'] = np.array([[0, 2**32-1], [1, 2], [3, 4]], dtype=np.uint32)
d['i64'] = np.array([[-2**63, 2**63-1], [0, 1], [2, -3]], dtype=np.int64)
d['u64'] = np.array([[0, 2**64-1], [1, 2], [3, 4]], dtype=np.uint64)
d['single'] = np.array([[1.5, -2.25], [0.1, 1e30], [0, -0.0]], dtype=np.float32)
d['dbl'] = np.array([[np.pi, -np.e], [1e-300, 1e300], [0, np.nan]], dtype=np.float64)
d['flag'] = np.array([[True, False], [False, True], [True, True]])
d['labels'] = np.array([[3, 3, 7, -1, 7]], dtype=np.int32)
d['fracvec'] = np.array([[1.0, 2.5, 3.0]])
d['empty'] = np.zeros((0, 0))
sio.savemat('scipy-types.mat', d, do_compression=False)
sio.savemat('scipy-types-z.mat', d, do_compression=True)

u = {}
c = np.empty((1, 2), dtype=object)
c[0, 0] = np.array([[1.0]])
c[0, 1] = np.array([[2.0, 3.0]])
u['acell'] = c
u['astruct'] = {'a': np.array([[1.0]]), 'b': 'text'}
u['achar'] = 'hello'
u['asparse'] = sp.csc_matrix(np.array([[0, 1.0], [2.0, 0]]))
u['acomplex'] = np.array([[1+2j, 3-4j]])
u['a3d'] = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
u['ok'] = np.array([[1.0, 2.0], [3.0, 4.0]])
sio.savemat('scipy-unsupported.mat', u, do_compression=True)
