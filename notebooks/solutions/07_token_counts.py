# Solution: "The well-known chef can't cook 3.5kg of rice."
#   13a : The | well-known | chef | can't | cook | 3.5kg | of | rice | .         -> 9 (only the final '.' splits off)
#   intl: also splits well - known and can ' t (3.5 stays: a period between digits) -> 13
#   none: whitespace only, 'rice.' stays one token                                -> 8
from bleu_lab.course.exercises.tokenization import check_token_counts

prediction = {"13a": 9, "intl": 13, "none": 8}

check_token_counts(prediction)
