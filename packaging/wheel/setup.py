# The cudainspect wheel (make wheel): the prebuilt C programs as package data, a platform wheel
# (the binaries are x86-64 or aarch64 Linux code), repaired by auditwheel into manylinux.
# The version comes from include/cudainspect/cudainspect.h through the environment.
import os

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True  # platform-specific: no pure-Python "any" tag


class AnyPythonWheel(bdist_wheel):
    """The programs do not depend on the Python version: py3-none-PLATFORM."""

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


setup(
    name="cudainspect",
    cmdclass={"bdist_wheel": AnyPythonWheel},
    version=os.environ["CUDAINSPECT_VERSION"],
    description="Say what the GPU was doing when a CUDA program died: the faulting kernel, "
                "pending work, the allocation a bad pointer belongs to",
    long_description=open("README.md").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    packages=["cudainspect"],
    package_data={"cudainspect": ["bin/*", "lib/*", "share/*/*", "share/man/*/*"]},
    entry_points={"console_scripts": ["cudainspect = cudainspect:main",
                                      "cudainspect-gdb-run = cudainspect:gdb_run"]},
    # The manual pages where man finds them for a program in PREFIX/bin: PREFIX/share/man.
    data_files=[("share/man/man1", ["cudainspect/share/man/man1/cudainspect.1",
                                    "cudainspect/share/man/man1/cudainspect-record.1",
                                    "cudainspect/share/man/man1/cudainspect-merge.1"]),
                ("share/man/man7", ["cudainspect/share/man/man7/libcudainspect-rec.7"])],
    python_requires=">=3.8",
    distclass=BinaryDistribution,
    zip_safe=False,
    classifiers=["Operating System :: POSIX :: Linux", "Programming Language :: C",
                 "Topic :: Software Development :: Debuggers"],
)
