"""Keyword-only parameters, refused by name: a positional argument to an estimator raises a
``TypeError`` that names the estimator called and its parameters, not the class that
happens to define the inherited ``__init__``."""

__all__ = ["KeywordOnlyMixin"]


class KeywordOnlyMixin:
    """Refuse positional arguments with the name of the concrete estimator and its parameters.

    ``__new__`` sees the arguments of the call before the inherited ``__init__`` does: without
    it ``FirstOrderBoundClassifier(0.1)`` reads "MajorityVoteClassifier.__init__() takes 1
    positional argument". Placed before :class:`sklearn.base.BaseEstimator` in the bases.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from skpacbayes._utils._keyword_only import KeywordOnlyMixin
    >>> class Base(KeywordOnlyMixin, BaseEstimator):
    ...     def __init__(self, *, delta=0.05):
    ...         self.delta = delta
    >>> class Child(Base):
    ...     pass
    >>> Child(0.1)
    Traceback (most recent call last):
    ...
    TypeError: Child takes its parameters by keyword only, got 1 positional argument (0.1): \
name each one, as in Child(<parameter>=0.1), <parameter> one of delta
    """

    def __new__(cls, *args, **kwargs):
        if args:
            count = f"{len(args)} positional argument{'s' if len(args) > 1 else ''}"
            raise TypeError(
                f"{cls.__name__} takes its parameters by keyword only, got {count} "
                f"({', '.join(repr(a) for a in args)}): name each one, as in "
                f"{cls.__name__}(<parameter>={args[0]!r}), <parameter> one of "
                f"{', '.join(cls._get_param_names())}"
            )
        return super().__new__(cls)
