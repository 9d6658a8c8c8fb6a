"""The page types a small journal needs (home, blog index, blog post with an image, contact form) and one snippet.

Kept minimal: each type exists because a task edits it (docs in specs/apps/wagtail/).
"""

from django.db import models
from modelcluster.fields import ParentalKey
from wagtail.admin.panels import FieldPanel, InlinePanel
from wagtail.contrib.forms.models import AbstractFormField, AbstractForm
from wagtail.fields import RichTextField
from wagtail.models import Page
from wagtail.snippets.models import register_snippet


class HomePage(Page):
    body = RichTextField(blank=True)
    content_panels = Page.content_panels + [FieldPanel("body")]
    subpage_types = ["site_cms.BlogIndexPage", "site_cms.FormPage"]


class BlogIndexPage(Page):
    intro = RichTextField(blank=True)
    content_panels = Page.content_panels + [FieldPanel("intro")]
    subpage_types = ["site_cms.BlogPage"]


class BlogPage(Page):
    date = models.DateField("Post date", null=True, blank=True)
    body = RichTextField(blank=True)
    image = models.ForeignKey("wagtailimages.Image", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    content_panels = Page.content_panels + [FieldPanel("date"), FieldPanel("image"), FieldPanel("body")]
    parent_page_types = ["site_cms.BlogIndexPage"]
    subpage_types: list[str] = []


class FormField(AbstractFormField):
    page = ParentalKey("FormPage", on_delete=models.CASCADE, related_name="form_fields")


class FormPage(AbstractForm):
    intro = RichTextField(blank=True)
    thank_you_text = RichTextField(blank=True)
    content_panels = AbstractForm.content_panels + [
        FieldPanel("intro"), InlinePanel("form_fields", label="Form fields"), FieldPanel("thank_you_text")]
    subpage_types: list[str] = []


@register_snippet
class Announcement(models.Model):
    """The banner text shown on every page: the snippet an editor changes."""

    title = models.CharField(max_length=120)
    text = models.TextField()
    panels = [FieldPanel("title"), FieldPanel("text")]

    def __str__(self) -> str:
        return self.title
