"""Published figures the benchmark compares against (percent, mean and std over 5 seeds).

Source: Leblanc & Germain (AISTATS 2026 preprint), Tables 2 and 3, delta = 0.05,
best posterior family per bound (the reference does not split delta over
families). ``MEASURED`` holds the best-single-voter baseline measured on our copies of
the data (bound / test). Each entry is ``(bound_mean, bound_std, test_mean, test_std)``.
"""

# The rows of the tables, one published figure a row; the loop below nests them by their keys.
# Table 2: (dataset, method, bound, bound std, test, test std)
_TABLE2_ROWS = (
    ("adult", "FO", 46.9, 0.0, 22.2, 0.1),
    ("adult", "SO", 52.9, 0.1, 15.8, 0.2),
    ("adult", "Bin", 51.4, 0.0, 24.1, 0.0),
    ("adult", "CBound", 74.5, 0.4, 21.0, 1.6),
    ("adult", "VC", 78.9, 0.0, 17.2, 0.3),
    ("adult", "Partition", 23.2, 2.4, 21.7, 2.5),
    ("codrna", "FO", 40.2, 0.1, 12.0, 0.1),
    ("codrna", "SO", 47.4, 0.1, 11.7, 0.1),
    ("codrna", "Bin", 42.8, 5.2, 15.2, 4.5),
    ("codrna", "CBound", 63.7, 1.0, 23.1, 1.3),
    ("codrna", "VC", 38.8, 1.6, 23.1, 1.5),
    ("codrna", "Partition", 24.7, 0.3, 23.6, 0.3),
    ("haberman", "FO", 75.2, 0.9, 26.5, 1.8),
    ("haberman", "SO", 110.5, 1.1, 26.1, 2.1),
    ("haberman", "Bin", 84.7, 0.8, 26.1, 0.7),
    ("haberman", "CBound", 100.0, 0.0, 27.1, 1.8),
    ("haberman", "VC", 112.0, 1.0, 28.4, 1.8),
    ("haberman", "Partition", 37.8, 0.5, 26.5, 1.8),
    ("mushroom", "FO", 12.2, 0.3, 4.8, 0.5),
    ("mushroom", "SO", 20.6, 1.2, 0.5, 0.3),
    ("mushroom", "Bin", 12.6, 0.4, 1.1, 0.1),
    ("mushroom", "CBound", 22.0, 0.5, 4.8, 0.5),
    ("mushroom", "VC", 59.1, 0.1, 4.8, 0.5),
    ("mushroom", "Partition", 7.9, 2.4, 4.8, 0.5),
    ("phishing", "FO", 25.8, 0.3, 11.1, 0.6),
    ("phishing", "SO", 33.6, 0.2, 6.4, 0.5),
    ("phishing", "Bin", 27.5, 0.2, 6.8, 0.5),
    ("phishing", "CBound", 37.1, 0.5, 10.4, 1.3),
    ("phishing", "VC", 85.2, 0.2, 11.1, 0.6),
    ("phishing", "Partition", 25.8, 0.4, 11.1, 0.6),
    ("svmguide1", "FO", 17.4, 0.6, 7.0, 1.0),
    ("svmguide1", "SO", 28.2, 0.7, 7.0, 1.0),
    ("svmguide1", "Bin", 22.0, 0.6, 7.0, 1.0),
    ("svmguide1", "CBound", 29.2, 0.7, 7.0, 1.0),
    ("svmguide1", "VC", 37.6, 0.3, 7.0, 1.0),
    ("svmguide1", "Partition", 8.7, 0.3, 7.0, 1.0),
    ("tictactoe", "FO", 75.9, 1.9, 30.4, 3.8),
    ("tictactoe", "SO", 100.0, 0.7, 30.2, 2.7),
    ("tictactoe", "Bin", 87.2, 1.2, 29.5, 4.3),
    ("tictactoe", "CBound", 94.8, 0.7, 30.4, 3.8),
    ("tictactoe", "VC", 117.0, 1.8, 32.2, 2.9),
    ("tictactoe", "Partition", 69.8, 6.5, 30.4, 3.8),
    ("fashion_mnist", "FO", 40.7, 0.2, 17.1, 0.2),
    ("fashion_mnist", "SO", 58.6, 0.2, 13.0, 0.3),
    ("fashion_mnist", "Bin", 49.9, 0.3, 13.0, 0.3),
    ("fashion_mnist", "VC", 40.3, 0.3, 18.3, 0.3),
    ("fashion_mnist", "Partition", 26.6, 0.1, 25.4, 0.2),
    ("mnist", "FO", 26.9, 0.1, 8.0, 0.4),
    ("mnist", "SO", 44.7, 0.1, 4.4, 0.1),
    ("mnist", "Bin", 35.8, 0.2, 4.3, 0.2),
    ("mnist", "VC", 37.4, 2.6, 15.8, 2.7),
    ("mnist", "Partition", 23.6, 0.2, 22.6, 0.3),
    ("pendigits", "FO", 12.0, 0.2, 2.5, 0.3),
    ("pendigits", "SO", 17.1, 0.1, 1.5, 0.2),
    ("pendigits", "Bin", 15.5, 0.2, 1.5, 0.2),
    ("pendigits", "VC", 52.7, 0.6, 5.8, 0.7),
    ("pendigits", "Partition", 10.6, 0.2, 8.3, 0.7),
    ("protein", "FO", 84.9, 0.6, 34.9, 0.3),
    ("protein", "SO", 138.3, 0.3, 36.6, 0.5),
    ("protein", "Bin", 120.1, 1.3, 55.0, 0.5),
    ("protein", "VC", 73.4, 0.3, 39.7, 0.5),
    ("protein", "Partition", 54.1, 0.2, 52.0, 0.6),
    ("sensorless", "FO", 16.8, 0.4, 4.1, 0.3),
    ("sensorless", "SO", 21.2, 1.0, 3.9, 0.4),
    ("sensorless", "Bin", 15.3, 1.0, 3.0, 0.2),
    ("sensorless", "VC", 32.9, 2.0, 9.6, 2.0),
    ("sensorless", "Partition", 11.4, 1.0, 10.6, 0.6),
)

# Table 3, the partition bound per family: (method, dataset, family, bound, std, test, std)
_TABLE3_ROWS = (
    ("Partition", "adult", "categorical", 46.9, 0.0, 22.2, 0.1),
    ("Partition", "adult", "dirichlet", 23.2, 2.4, 21.6, 2.5),
    ("Partition", "adult", "gaussian", 48.7, 4.1, 21.6, 4.3),
    ("Partition", "codrna", "categorical", 24.7, 0.3, 23.6, 0.3),
    ("Partition", "codrna", "dirichlet", 29.4, 4.8, 28.4, 4.6),
    ("Partition", "codrna", "gaussian", 39.7, 1.4, 12.0, 0.1),
    ("Partition", "haberman", "categorical", 37.8, 0.5, 26.5, 1.8),
    ("Partition", "haberman", "dirichlet", 84.5, 21.2, 29.7, 5.9),
    ("Partition", "haberman", "gaussian", 82.3, 1.0, 26.5, 0.9),
    ("Partition", "mushroom", "categorical", 7.9, 2.4, 4.8, 0.5),
    ("Partition", "mushroom", "dirichlet", 7.9, 1.0, 4.1, 1.8),
    ("Partition", "mushroom", "gaussian", 15.7, 1.3, 0.6, 0.4),
    ("Partition", "phishing", "categorical", 25.8, 0.4, 11.1, 0.6),
    ("Partition", "phishing", "dirichlet", 26.8, 0.3, 6.5, 0.4),
    ("Partition", "phishing", "gaussian", 27.2, 0.2, 6.5, 0.4),
    ("Partition", "svmguide1", "categorical", 8.7, 0.3, 7.0, 1.0),
    ("Partition", "svmguide1", "dirichlet", 9.6, 1.8, 5.3, 1.4),
    ("Partition", "svmguide1", "gaussian", 13.0, 0.3, 6.9, 1.5),
    ("Partition", "tictactoe", "categorical", 69.8, 6.5, 30.4, 3.8),
    ("Partition", "tictactoe", "dirichlet", 84.2, 1.3, 29.8, 4.2),
    ("Partition", "tictactoe", "gaussian", 75.9, 2.2, 29.3, 2.3),
    ("Partition", "fashion_mnist", "categorical", 26.6, 0.1, 25.4, 0.2),
    ("Partition", "fashion_mnist", "dirichlet", 45.9, 0.2, 17.0, 0.2),
    ("Partition", "mnist", "categorical", 23.6, 0.2, 22.6, 0.3),
    ("Partition", "mnist", "dirichlet", 43.7, 0.2, 8.0, 0.4),
    ("Partition", "pendigits", "categorical", 10.6, 0.2, 8.3, 0.7),
    ("Partition", "pendigits", "dirichlet", 12.9, 0.3, 2.4, 0.2),
    ("Partition", "protein", "categorical", 54.1, 0.2, 52.0, 0.6),
    ("Partition", "protein", "dirichlet", 65.5, 29.2, 52.8, 0.6),
    ("Partition", "sensorless", "categorical", 11.4, 1.0, 10.6, 0.6),
    ("Partition", "sensorless", "dirichlet", 12.3, 0.8, 3.0, 0.3),
)

# Best single voter (Occam), measured on our copies of the data: (method, dataset, bound, test)
_MEASURED_ROWS = (
    ("Occam", "haberman", 38.3, 25.8),
    ("Occam", "svmguide1", 10.1, 8.0),
    ("Occam", "adult", 23.6, 22.1),
    ("Occam", "phishing", 13.2, 10.4),
    ("Occam", "tictactoe", 39.0, 30.0),
    ("Occam", "mushroom", 13.6, 11.6),
    ("Occam", "pendigits", 9.7, 7.8),
    ("Occam", "mnist", 21.7, 20.5),
    ("Occam", "fashion_mnist", 26.0, 24.9),
)


def _nested(rows, n_keys):
    """The rows ``(*keys, *figures)`` as nested dicts: key -> ... -> tuple of figures."""
    table = {}
    for row in rows:
        node = table
        for key in row[: n_keys - 1]:
            node = node.setdefault(key, {})
        node[row[n_keys - 1]] = row[n_keys:]
    return table


#: Table 2: dataset -> method -> (bound, bound std, test, test std)
TABLE2 = _nested(_TABLE2_ROWS, 2)
#: Table 3: the partition bound per family: method -> dataset -> family -> (bound, std, test, std)
TABLE3 = _nested(_TABLE3_ROWS, 3)
#: Best single voter (Occam), measured on our copies of the data: method -> dataset -> (bound, test)
MEASURED = _nested(_MEASURED_ROWS, 2)
