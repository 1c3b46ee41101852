"""How a statement is made: the protocols of the hold-out line.

Each module is one way of certifying, handed data and a specification by an estimator and
handing back a result whose certificate comes out of the one certify step
(:func:`~skpacbayes.engine.certify.certify`) complete:

* :mod:`~skpacbayes.engine.protocols.held_out`: a plain vote grown on some rows and certified
  on rows it never saw (fixed fractions, the halves of a split bank, every row for fixed
  voters, a ``train_size`` sample); :mod:`~skpacbayes.engine.protocols.held_out_voters`, the
  voters it certifies; :mod:`~skpacbayes.engine.protocols.held_out_fit`, the choice among
  the three ways from an estimator's parameters;
* :mod:`~skpacbayes.engine.protocols.sample`: a sample of the rows in memory and a count of
  every other row in one pass (a dask array);
* :mod:`~skpacbayes.engine.protocols.stream`: the time-uniform certificate of fixed voters on
  a stream of rows;
* :mod:`~skpacbayes.engine.protocols.candidates`: several candidates, each at a share of
  ``delta`` fixed before the data, and the rule that deploys one
  (:mod:`~skpacbayes.engine.protocols.candidate_plan`: what they state, fixed before the
  rows; :mod:`~skpacbayes.engine.protocols.default_candidates`: the default list);
* :mod:`~skpacbayes.engine.protocols.decisions`: the certified decisions (a threshold, a
  reject option) of a fitted model.
"""
