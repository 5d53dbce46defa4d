"""Mathematics, privacy: the secure noise source and its samplers, the mechanisms'
scales and privacy losses, local DP, one-shot top-k, private ties and the release
steps (declared bounds, perturbed-MLE releases).

The package itself imports nothing.
"""
