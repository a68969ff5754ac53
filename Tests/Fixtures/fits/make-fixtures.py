#!/usr/bin/env python3
"""Writes the FITS fixtures the tests cannot build by hand (astropy 5+).

tile-compressed-rice.fz: a 37 x 23 unsigned 16-bit image, pixel (x, y) =
(x * 1237 + y * 7919) % 65536 with y = 0 the picture's bottom row (the
first stored row), RICE_1 tile-compressed in a ZIMAGE binary table after an
empty primary HDU, as fpack writes it. Run from this folder.
"""
import numpy as np
from astropy.io import fits

w, h = 37, 23
y, x = np.mgrid[0:h, 0:w]
data = ((x * 1237 + y * 7919) % 65536).astype(np.uint16)
fits.HDUList([fits.PrimaryHDU(),
              fits.CompImageHDU(data, compression_type="RICE_1")]).writeto("tile-compressed-rice.fz", overwrite=True)
