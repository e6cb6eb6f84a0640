"""The lab's maths: what ``/lab`` and the API behind it compute for a user's own sentence."""
