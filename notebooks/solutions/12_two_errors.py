# A model answer (written answers are graded by a person; the check looks for the three key points).
from bleu_lab.course.exercises.metrics_and_people import check_two_errors

answer = ("UEdin's schäbig (shabby) is a fluent mistranslation with the wrong meaning, a major accuracy error, while "
          "Online-W's words are right and its only fault is the straight ASCII quotation marks, a minor punctuation "
          "error that MQM weighs 0.1; BLEU only counts n-gram matches with reference C, and the straight quotes break "
          "more of those token matches than one wrong word does, so BLEU puts the wrong translation first.")
check_two_errors(answer)
