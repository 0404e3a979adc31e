"""the links of a draw made again: they write nothing and say why

A redraw keeps the round's matches and gives them new players and new links;
the old links are kept in ``tournament_redrawn_link`` so that a phone that
still has one is told the table was drawn again.

Revision ID: b6d2f8a4c3e1
Revises: a8c4e2f6b1d3
Create Date: 2026-11-27 09:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b6d2f8a4c3e1'
down_revision = 'a8c4e2f6b1d3'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'tournament_redrawn_link',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=32), nullable=False),
        sa.Column('round_id', sa.Integer(), nullable=False),
        sa.Column('retired_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ['round_id'], ['tournament_round.id'],
            name=op.f('fk_tournament_redrawn_link_round_id_tournament_round'),
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_tournament_redrawn_link')),
        sa.UniqueConstraint('token', name=op.f('uq_tournament_redrawn_link_token')),
    )
    with op.batch_alter_table('tournament_redrawn_link', schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f('ix_tournament_redrawn_link_round_id'), ['round_id'], unique=False
        )


def downgrade():
    with op.batch_alter_table('tournament_redrawn_link', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournament_redrawn_link_round_id'))
    op.drop_table('tournament_redrawn_link')
