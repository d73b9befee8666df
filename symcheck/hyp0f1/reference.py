"""PLACEHOLDER: the mpmath reference is being written (see issue 2)."""


def hyp0f1_reference(*args, **kwargs):
    raise NotImplementedError("the mpmath reference is not implemented yet")
