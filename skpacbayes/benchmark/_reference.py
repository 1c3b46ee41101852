"""Published figures the benchmark compares against (percent, mean and std over 5 seeds).

Source: Leblanc & Germain (AISTATS 2026 preprint), Tables 2 and 3, delta = 0.05,
best posterior family per bound (the reference does not split delta over
families). ``MEASURED`` holds the best-single-voter baseline measured on our copies of
the data (bound / test). Each entry is ``(bound_mean, bound_std, test_mean, test_std)``.
"""

# Table 2: method -> dataset -> (bound, bound std, test, test std)
TABLE2 = {
    "adult": {
        "FO": (46.9, 0.0, 22.2, 0.1),
        "SO": (52.9, 0.1, 15.8, 0.2),
        "Bin": (51.4, 0.0, 24.1, 0.0),
        "CBound": (74.5, 0.4, 21.0, 1.6),
        "VC": (78.9, 0.0, 17.2, 0.3),
        "Partition": (23.2, 2.4, 21.7, 2.5),
    },
    "codrna": {
        "FO": (40.2, 0.1, 12.0, 0.1),
        "SO": (47.4, 0.1, 11.7, 0.1),
        "Bin": (42.8, 5.2, 15.2, 4.5),
        "CBound": (63.7, 1.0, 23.1, 1.3),
        "VC": (38.8, 1.6, 23.1, 1.5),
        "Partition": (24.7, 0.3, 23.6, 0.3),
    },
    "haberman": {
        "FO": (75.2, 0.9, 26.5, 1.8),
        "SO": (110.5, 1.1, 26.1, 2.1),
        "Bin": (84.7, 0.8, 26.1, 0.7),
        "CBound": (100.0, 0.0, 27.1, 1.8),
        "VC": (112.0, 1.0, 28.4, 1.8),
        "Partition": (37.8, 0.5, 26.5, 1.8),
    },
    "mushroom": {
        "FO": (12.2, 0.3, 4.8, 0.5),
        "SO": (20.6, 1.2, 0.5, 0.3),
        "Bin": (12.6, 0.4, 1.1, 0.1),
        "CBound": (22.0, 0.5, 4.8, 0.5),
        "VC": (59.1, 0.1, 4.8, 0.5),
        "Partition": (7.9, 2.4, 4.8, 0.5),
    },
    "phishing": {
        "FO": (25.8, 0.3, 11.1, 0.6),
        "SO": (33.6, 0.2, 6.4, 0.5),
        "Bin": (27.5, 0.2, 6.8, 0.5),
        "CBound": (37.1, 0.5, 10.4, 1.3),
        "VC": (85.2, 0.2, 11.1, 0.6),
        "Partition": (25.8, 0.4, 11.1, 0.6),
    },
    "svmguide1": {
        "FO": (17.4, 0.6, 7.0, 1.0),
        "SO": (28.2, 0.7, 7.0, 1.0),
        "Bin": (22.0, 0.6, 7.0, 1.0),
        "CBound": (29.2, 0.7, 7.0, 1.0),
        "VC": (37.6, 0.3, 7.0, 1.0),
        "Partition": (8.7, 0.3, 7.0, 1.0),
    },
    "tictactoe": {
        "FO": (75.9, 1.9, 30.4, 3.8),
        "SO": (100.0, 0.7, 30.2, 2.7),
        "Bin": (87.2, 1.2, 29.5, 4.3),
        "CBound": (94.8, 0.7, 30.4, 3.8),
        "VC": (117.0, 1.8, 32.2, 2.9),
        "Partition": (69.8, 6.5, 30.4, 3.8),
    },
    "fashion_mnist": {
        "FO": (40.7, 0.2, 17.1, 0.2),
        "SO": (58.6, 0.2, 13.0, 0.3),
        "Bin": (49.9, 0.3, 13.0, 0.3),
        "VC": (40.3, 0.3, 18.3, 0.3),
        "Partition": (26.6, 0.1, 25.4, 0.2),
    },
    "mnist": {
        "FO": (26.9, 0.1, 8.0, 0.4),
        "SO": (44.7, 0.1, 4.4, 0.1),
        "Bin": (35.8, 0.2, 4.3, 0.2),
        "VC": (37.4, 2.6, 15.8, 2.7),
        "Partition": (23.6, 0.2, 22.6, 0.3),
    },
    "pendigits": {
        "FO": (12.0, 0.2, 2.5, 0.3),
        "SO": (17.1, 0.1, 1.5, 0.2),
        "Bin": (15.5, 0.2, 1.5, 0.2),
        "VC": (52.7, 0.6, 5.8, 0.7),
        "Partition": (10.6, 0.2, 8.3, 0.7),
    },
    "protein": {
        "FO": (84.9, 0.6, 34.9, 0.3),
        "SO": (138.3, 0.3, 36.6, 0.5),
        "Bin": (120.1, 1.3, 55.0, 0.5),
        "VC": (73.4, 0.3, 39.7, 0.5),
        "Partition": (54.1, 0.2, 52.0, 0.6),
    },
    "sensorless": {
        "FO": (16.8, 0.4, 4.1, 0.3),
        "SO": (21.2, 1.0, 3.9, 0.4),
        "Bin": (15.3, 1.0, 3.0, 0.2),
        "VC": (32.9, 2.0, 9.6, 2.0),
        "Partition": (11.4, 1.0, 10.6, 0.6),
    },
}

# Table 3: the partition bound per family: method -> dataset -> family -> (bound, std, test, std)
TABLE3 = {
    "Partition": {
        "adult": {
            "categorical": (46.9, 0.0, 22.2, 0.1),
            "dirichlet": (23.2, 2.4, 21.6, 2.5),
            "gaussian": (48.7, 4.1, 21.6, 4.3),
        },
        "codrna": {
            "categorical": (24.7, 0.3, 23.6, 0.3),
            "dirichlet": (29.4, 4.8, 28.4, 4.6),
            "gaussian": (39.7, 1.4, 12.0, 0.1),
        },
        "haberman": {
            "categorical": (37.8, 0.5, 26.5, 1.8),
            "dirichlet": (84.5, 21.2, 29.7, 5.9),
            "gaussian": (82.3, 1.0, 26.5, 0.9),
        },
        "mushroom": {
            "categorical": (7.9, 2.4, 4.8, 0.5),
            "dirichlet": (7.9, 1.0, 4.1, 1.8),
            "gaussian": (15.7, 1.3, 0.6, 0.4),
        },
        "phishing": {
            "categorical": (25.8, 0.4, 11.1, 0.6),
            "dirichlet": (26.8, 0.3, 6.5, 0.4),
            "gaussian": (27.2, 0.2, 6.5, 0.4),
        },
        "svmguide1": {
            "categorical": (8.7, 0.3, 7.0, 1.0),
            "dirichlet": (9.6, 1.8, 5.3, 1.4),
            "gaussian": (13.0, 0.3, 6.9, 1.5),
        },
        "tictactoe": {
            "categorical": (69.8, 6.5, 30.4, 3.8),
            "dirichlet": (84.2, 1.3, 29.8, 4.2),
            "gaussian": (75.9, 2.2, 29.3, 2.3),
        },
        "fashion_mnist": {
            "categorical": (26.6, 0.1, 25.4, 0.2),
            "dirichlet": (45.9, 0.2, 17.0, 0.2),
        },
        "mnist": {"categorical": (23.6, 0.2, 22.6, 0.3), "dirichlet": (43.7, 0.2, 8.0, 0.4)},
        "pendigits": {"categorical": (10.6, 0.2, 8.3, 0.7), "dirichlet": (12.9, 0.3, 2.4, 0.2)},
        "protein": {"categorical": (54.1, 0.2, 52.0, 0.6), "dirichlet": (65.5, 29.2, 52.8, 0.6)},
        "sensorless": {"categorical": (11.4, 1.0, 10.6, 0.6), "dirichlet": (12.3, 0.8, 3.0, 0.3)},
    },
}

# Best single voter (Occam), measured on our copies of the data: method -> dataset -> (bound, test).
MEASURED = {
    "Occam": {
        "haberman": (38.3, 25.8),
        "svmguide1": (10.1, 8.0),
        "adult": (23.6, 22.1),
        "phishing": (13.2, 10.4),
        "tictactoe": (39.0, 30.0),
        "mushroom": (13.6, 11.6),
        "pendigits": (9.7, 7.8),
        "mnist": (21.7, 20.5),
        "fashion_mnist": (26.0, 24.9),
    },
}
