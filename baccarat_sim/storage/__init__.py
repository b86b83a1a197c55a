"""Files: bounded reads of regular files, atomic writes of whole file sets, run locks, checked archives.

The lowest layer with the model: every file the package reads or writes goes
through here, so that a FIFO, a device or a huge file is refused in one place
and no crash leaves half a file under a final name.
"""
